package air.replication.replica;

import air.runtime.impl.checkpoint.PartSections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A replica's copy of a peer's snapshot as a chain: the parts of a whole checkpoint, then the
 * parts of each checkpoint of changes after it, oldest first, kept as they arrived. Changes are
 * checked when they arrive ({@link #check}: cost in proportion to the changes) and folded only
 * when the copy is read, for a takeover ({@link #part}): each tasklet's part folded over the chain
 * in one pass ({@link PartSections#appendAll}), which is what {@link PartSections#append} of each
 * checkpoint onto the one before gives. A part that a checkpoint of the chain lacks is dropped
 * from then on (its tasklet no longer writes state); a part new in a checkpoint of changes (a
 * tasklet taken over since) must be complete, since a new tasklet writes whole state.
 */
final class Folding {

    private Folding() {
    }

    /**
     * Checks that {@code changes} (checkpoint {@code id}'s parts, changes since {@code id - 1}) can
     * be folded onto {@code before}, the parts of checkpoint {@code id - 1}: every part reads as
     * operator states, and one new at {@code id} is complete. Reads the changes only.
     *
     * @return null when they can; else why not, when a part new at {@code id} holds changes only
     *         (the sender's bookkeeping and this copy disagree: a whole copy mends it)
     * @throws IllegalArgumentException naming the part, when a part cannot be read as operator states (garbage)
     */
    static String check(Map<String, byte[]> before, long id, Map<String, byte[]> changes) {
        for (Map.Entry<String, byte[]> e : changes.entrySet()) {
            String part = e.getKey();
            boolean complete;
            try {
                complete = PartSections.complete(e.getValue());
            } catch (RuntimeException x) {
                throw new IllegalArgumentException("part " + part + " of checkpoint " + id + " cannot be folded onto checkpoint " + (id - 1)
                        + ": " + x.getMessage(), x);
            }
            if (!complete && !before.containsKey(part)) {
                return "part " + part + " is new at checkpoint " + id + " but holds only changes, and checkpoint " + (id - 1)
                        + " has no state of it to apply them to";
            }
        }
        return null;
    }

    /**
     * Part {@code name} of the newest checkpoint of {@code chain}, folded over the checkpoints
     * before it that hold it without a gap; null when the newest checkpoint has no such part.
     */
    static byte[] part(List<Map<String, byte[]>> chain, String name) {
        try {
            return PartSections.foldNewest(chain, name);
        } catch (RuntimeException x) {
            throw new IllegalStateException("part " + name + " cannot be folded over its chain: " + x.getMessage(), x);
        }
    }

    /** Every part of the newest checkpoint of {@code chain}, each folded ({@link #part}). */
    static Map<String, byte[]> parts(List<Map<String, byte[]>> chain) {
        Map<String, byte[]> newest = chain.get(chain.size() - 1);
        Map<String, byte[]> folded = new HashMap<>(newest.size() * 2);
        for (String name : newest.keySet()) {
            folded.put(name, part(chain, name));
        }
        return Map.copyOf(folded);
    }
}
