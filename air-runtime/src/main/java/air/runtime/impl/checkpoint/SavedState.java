package air.runtime.impl.checkpoint;

import air.wire.WireIn;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The operator states a run resumes from, found by operator id and global instance rather than by
 * tasklet part, so that an operator whose vertex was renumbered (a named stage after an added
 * vertex) still finds its state. Read-only once built: tasklets look up their operators on their
 * own threads.
 */
public final class SavedState {

    /** Sections by {@code id@instance}, or by id alone for one part ({@link #ofPart}). */
    private final Map<String, PartSections.Section> sections;
    private final boolean onePart;

    private SavedState(Map<String, PartSections.Section> sections, boolean onePart) {
        this.sections = sections;
        this.onePart = onePart;
    }

    /** This peer's parts of a checkpoint ({@link PartNames}: {@code v<vertex>/<global instance>}), each complete. */
    public static SavedState of(Map<String, byte[]> parts) {
        return of(List.of(parts));
    }

    /**
     * This peer's parts of a chain of checkpoints, oldest first (a full checkpoint, then those that
     * hold only changes since the one before): each part of the newest checkpoint folded over the
     * chain in one pass ({@link PartSections#foldNewest}); that is what the tasklet resumes.
     */
    public static SavedState of(List<Map<String, byte[]>> chain) {
        Map<String, byte[]> folded = new LinkedHashMap<>();
        for (String part : chain.get(chain.size() - 1).keySet()) {
            folded.put(part, fold(chain, part));
        }
        Map<String, PartSections.Section> all = new LinkedHashMap<>();
        for (Map.Entry<String, byte[]> part : folded.entrySet()) {
            int instance = PartNames.instanceOf(part.getKey());
            for (Map.Entry<String, PartSections.Section> s : read(part.getKey(), part.getValue()).entrySet()) {
                all.put(s.getKey() + "@" + instance, s.getValue());
            }
        }
        return new SavedState(all, false);
    }

    /** One tasklet's part, for a restore of the same plan (a replica taking over a block): found by id alone. */
    public static SavedState ofPart(String part, byte[] bytes) {
        return new SavedState(read(part, bytes), true);
    }

    private static byte[] fold(List<Map<String, byte[]>> chain, String part) {
        try {
            return PartSections.foldNewest(chain, part);
        } catch (RuntimeException e) {
            throw new IllegalStateException("checkpoint part " + part + " cannot be read as operator states (" + e.getMessage() + ")", e);
        }
    }

    private static Map<String, PartSections.Section> read(String part, byte[] bytes) {
        try {
            return PartSections.read(bytes);
        } catch (RuntimeException e) {
            throw new IllegalStateException("checkpoint part " + part + " cannot be read as operator states (" + e.getMessage() + ")", e);
        }
    }

    /** Every saved operator id with its descriptor. */
    public Map<String, String> descriptors() {
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, PartSections.Section> s : sections.entrySet()) {
            out.putIfAbsent(idOf(s.getKey()), s.getValue().descriptor());
        }
        return out;
    }

    /** Only the states of operators {@code ids}: what a changed pipeline resumes. */
    public SavedState only(Set<String> ids) {
        Map<String, PartSections.Section> kept = new HashMap<>();
        sections.forEach((key, s) -> {
            if (ids.contains(idOf(key))) {
                kept.put(key, s);
            }
        });
        return new SavedState(kept, onePart);
    }

    /** Operator {@code id}'s full state at global instance {@code instance}, or null when there is none to restore. */
    public WireIn state(String id, int instance) {
        List<WireIn> states = states(id, instance);
        return states == null ? null : states.get(0);
    }

    /**
     * Operator {@code id}'s states at global instance {@code instance}: the full state, then the
     * changes written after it, oldest first; null when there is none to restore.
     *
     * @throws IllegalStateException when only changes were saved, without the full state they apply to
     */
    public List<WireIn> states(String id, int instance) {
        PartSections.Section s = sections.get(onePart ? id : id + "@" + instance);
        if (s == null) {
            return null;
        }
        if (!s.complete()) {
            throw new IllegalStateException("operator " + id + (onePart ? "" : " instance " + instance) + ": the checkpoint holds only "
                    + "changes of its state, not the full state they apply to (a checkpoint of the chain is missing)");
        }
        List<WireIn> out = new ArrayList<>(s.states().size());
        for (byte[] state : s.states()) {
            out.add(new WireIn(ByteBuffer.wrap(state), -1));
        }
        return out;
    }

    /**
     * Operator {@code id}'s states as every instance of the layout that saved them left them
     * (a restore onto another layout reads them all): indexed by global instance, each the whole
     * state and the changes after it, null where an instance saved none; null when none did.
     */
    public List<List<WireIn>> allInstances(String id) {
        int count = 0;
        for (String key : sections.keySet()) {
            if (!onePart && idOf(key).equals(id)) {
                count = Math.max(count, Integer.parseInt(key.substring(key.lastIndexOf('@') + 1)) + 1);
            }
        }
        if (count == 0) {
            return null;
        }
        List<List<WireIn>> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(states(id, i));
        }
        return out;
    }

    /** A checkpoint of several peers: their parts together (their part names are of global instances, so none collide). */
    public static SavedState union(List<SavedState> peers) {
        Map<String, PartSections.Section> all = new LinkedHashMap<>();
        for (SavedState s : peers) {
            all.putAll(s.sections);
        }
        return new SavedState(all, false);
    }

    private String idOf(String key) {
        return onePart ? key : key.substring(0, key.lastIndexOf('@'));
    }
}
