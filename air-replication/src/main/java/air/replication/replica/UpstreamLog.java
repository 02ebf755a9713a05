package air.replication.replica;

import air.runtime.impl.ops.ShuffleItem;
import java.util.ArrayDeque;
import java.util.function.Consumer;
import java.util.function.IntToLongFunction;

/**
 * What one producer sent to each destination on another peer, in order, each item tagged with the
 * number of the producer's last barrier before it. An item tagged {@code t} is in every snapshot
 * numbered above {@code t} of the destination, so once its host has replicated snapshot {@code c},
 * items tagged below {@code c} can go. Not thread-safe: its output guards it.
 */
final class UpstreamLog {

    private record Entry(ShuffleItem item, long tag) { }

    private final ArrayDeque<Entry>[] perDestination;

    @SuppressWarnings("unchecked")
    UpstreamLog(int destinations) {
        perDestination = new ArrayDeque[destinations];
        for (int d = 0; d < destinations; d++) {
            perDestination[d] = new ArrayDeque<>();
        }
    }

    void add(int destination, ShuffleItem item, long tag) {
        perDestination[destination].add(new Entry(item, tag));
    }

    /** Drops, per destination, the items tagged below what its host has replicated ({@code safe}). */
    void trim(IntToLongFunction safe) {
        for (int d = 0; d < perDestination.length; d++) {
            ArrayDeque<Entry> l = perDestination[d];
            if (l.isEmpty()) {
                continue;
            }
            long cut = safe.applyAsLong(d);
            while (!l.isEmpty() && l.peekFirst().tag() < cut) {
                l.pollFirst();
            }
        }
    }

    /** Every item kept for {@code destination}, oldest first. */
    void replay(int destination, Consumer<ShuffleItem> to) {
        for (Entry e : perDestination[destination]) {
            to.accept(e.item());
        }
    }

    void clear(int destination) {
        perDestination[destination].clear();
    }

    int size() {
        int n = 0;
        for (ArrayDeque<Entry> l : perDestination) {
            n += l.size();
        }
        return n;
    }
}
