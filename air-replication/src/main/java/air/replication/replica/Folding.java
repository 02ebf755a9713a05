package air.replication.replica;

import air.runtime.impl.checkpoint.PartSections;
import java.util.HashMap;
import java.util.Map;

/**
 * How a copy of a peer's snapshot takes the next checkpoint's changes, on the sender (its own
 * copy, which it sends whole to a target that does not hold the checkpoint before) and on every
 * replica: each part of the changes folded onto the same tasklet's part of the copy
 * ({@link PartSections#append}), without reading any operator's bytes. The result is a new value
 * that needs nothing before it, as the copy it was folded onto: each part complete sections (a
 * whole state and the changes written after it). A part only the copy has is dropped (its tasklet
 * no longer writes state); a part new in the changes (a tasklet taken over since) must be complete,
 * since a new tasklet writes whole state.
 */
final class Folding {

    private Folding() {
    }

    /**
     * {@code changes} (checkpoint {@code id}'s parts, changes since {@code id - 1}) folded onto
     * {@code older}, the copy of checkpoint {@code id - 1}; neither is changed.
     *
     * @throws IllegalArgumentException naming the part, when a part cannot be read as operator
     *                                  states or a new part holds changes only
     */
    static Map<String, byte[]> fold(Map<String, byte[]> older, long id, Map<String, byte[]> changes) {
        Map<String, byte[]> folded = new HashMap<>(changes.size() * 2);
        for (Map.Entry<String, byte[]> e : changes.entrySet()) {
            String part = e.getKey();
            byte[] before = older.get(part);
            boolean complete;
            try {
                if (before != null) {
                    folded.put(part, PartSections.append(before, e.getValue()));
                    continue;
                }
                complete = PartSections.complete(e.getValue());
            } catch (RuntimeException x) {
                throw new IllegalArgumentException("part " + part + " of checkpoint " + id + " cannot be folded onto checkpoint " + (id - 1)
                        + ": " + x.getMessage(), x);
            }
            if (!complete) {
                throw new IllegalArgumentException("part " + part + " is new at checkpoint " + id + " but holds only changes, and checkpoint "
                        + (id - 1) + " has no state of it to apply them to");
            }
            folded.put(part, e.getValue());
        }
        return Map.copyOf(folded);
    }
}
