package air.runtime.impl.exec;

import air.runtime.impl.ops.Counted;
import air.runtime.plan.OperatorInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The operators at each position of one vertex, for meters: the head is position 0, then the
 * chain and the tail's operators in the order they are built (a fork's branches one after the
 * other), the same on every instance and every peer.
 */
final class OperatorPositions {

    private final int vertex;
    private final TreeMap<Integer, OperatorSlot> byPosition = new TreeMap<>();
    /** The first instance's operators by position, to find what each one feeds. */
    private final Map<Object, Integer> positionOf = new IdentityHashMap<>();
    /** What the first instance's operator at each position feeds. */
    private final Map<Integer, Object> feedsOf = new HashMap<>();
    private int next = 1;

    OperatorPositions(int vertex) {
        this.vertex = vertex;
    }

    /** Restarts the numbering for the next instance. */
    void nextInstance() {
        next = 1;
    }

    int take() {
        return next++;
    }

    /** Takes {@code n} consecutive positions; returns the first. */
    int reserve(int n) {
        int first = next;
        next += n;
        return first;
    }

    /**
     * Adds {@code op} to the meters of {@code position}, feeding {@code feeds} (null at a tail);
     * {@code op} null: a slot without counted operators (a source).
     */
    void add(int position, String kind, OperatorInfo info, Object op, Object feeds) {
        OperatorSlot slot = byPosition.computeIfAbsent(position, p -> new OperatorSlot(vertex, p, kind, info,
                new CopyOnWriteArrayList<>(), -1));
        if (op != null) {
            slot.instances().add((Counted) op);
            positionOf.putIfAbsent(op, position);
        }
        if (feeds != null) {
            feedsOf.putIfAbsent(position, feeds);
        }
    }

    /** The slots in position order, each with the position of the operator it feeds. */
    List<OperatorSlot> slots() {
        List<OperatorSlot> out = new ArrayList<>();
        for (OperatorSlot slot : byPosition.values()) {
            Object feeds = feedsOf.get(slot.position());
            Integer to = feeds == null ? null : positionOf.get(feeds);
            out.add(new OperatorSlot(slot.vertex(), slot.position(), slot.kind(), slot.info(), slot.instances(),
                    to == null ? -1 : to));
        }
        return out;
    }
}
