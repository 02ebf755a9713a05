package air.runtime.impl.checkpoint;

import air.wire.WireIn;
import air.wire.WireOut;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The layout of one tasklet's part of a checkpoint: the state of each of its stateful operators
 * under the operator's id, so that a restore finds an operator's state by id, not by its place in
 * a chain. A part is a count, then per operator its id, its descriptor ({@link OperatorId}), its
 * kind and its states as length-prefixed bytes; a vertex's head (source or inbound edge) comes
 * first and holds whether the tasklet had finished.
 *
 * <p>Incremental checkpoints: a section is either <b>complete</b> — a full state, then the changes
 * written after it, oldest first — or <b>changes only</b>, to be applied on top of the same
 * section of the checkpoint before. {@link #append} folds a part onto the part before it without
 * reading any operator's bytes, which is how a restore turns a chain of checkpoints (a full one and
 * the changes after it) into one complete part, and how a replica keeps one complete copy from the
 * changes it is sent.
 */
public final class PartSections {

    private static final byte COMPLETE = 0;
    private static final byte CHANGES = 1;

    /**
     * One operator's saved state: what it was ({@link OperatorId#descriptor}), whether
     * {@code states} begins with a full state ({@code complete}) and the states, oldest first:
     * when complete the full one, then the changes written after it.
     */
    public record Section(String descriptor, boolean complete, List<byte[]> states) {

        /** The full state (complete sections only). */
        public byte[] state() {
            if (!complete) {
                throw new IllegalStateException("a section of changes only has no full state");
            }
            return states.get(0);
        }
    }

    /**
     * Writes one operator's state straight into the part (no buffer of its own, no copy): its
     * whole state, returning false, or what changed since its previous snapshot, returning true.
     */
    @FunctionalInterface
    public interface StateWriter {
        boolean write(WireOut out);
    }

    private final WireOut out;
    private final int count;
    private int added;
    private boolean anyChanges;

    /** A part of {@code count} sections. */
    public PartSections(int count) {
        this(count, 256);
    }

    /**
     * A part of {@code count} sections, in a buffer of {@code capacity} bytes to begin with: a
     * tasklet passes the size of its previous part, so that a large state is written without the
     * buffer growing (and being copied) a dozen times on the way.
     */
    public PartSections(int count, int capacity) {
        this(count, new WireOut(capacity));
    }

    /**
     * A part of {@code count} sections written into {@code buffer}, emptied first: a tasklet that
     * snapshots every second reuses one buffer, since what it captured is copied out at once
     * ({@code Checkpointing.offer}), instead of allocating and zeroing one as large as its state each time.
     */
    public PartSections(int count, WireOut buffer) {
        this.count = count;
        this.out = buffer.clear();
        out.putInt(count);
    }

    /** Adds operator {@code id}'s section, written in place by {@code writer}: complete, or changes when it says so. */
    public PartSections add(OperatorId id, StateWriter writer) {
        out.putString(id.id()).putString(id.descriptor());
        int kind = out.mark();
        out.putByte(COMPLETE).putInt(1);
        int length = out.mark();
        out.putInt(0);
        boolean changes = writer.write(out);
        out.putIntAt(length, out.mark() - length - 4);
        if (changes) {
            out.putByteAt(kind, CHANGES);
            anyChanges = true;
        }
        added++;
        return this;
    }

    /** Adds operator {@code id}'s full state, as written into {@code state}. */
    public PartSections add(OperatorId id, WireOut state) {
        return add(id, COMPLETE, state);
    }

    /** Adds what operator {@code id} changed since its previous snapshot, as written into {@code changes}. */
    public PartSections addChanges(OperatorId id, WireOut changes) {
        return add(id, CHANGES, changes);
    }

    private PartSections add(OperatorId id, byte kind, WireOut state) {
        ByteBuffer b = state.buffer();
        out.putString(id.id()).putString(id.descriptor()).putByte(kind).putInt(1)
                .putBytes(b.array(), b.arrayOffset() + b.position(), b.remaining());
        added++;
        return this;
    }

    /** Whether a section added holds changes only (the part needs the one before it). */
    public boolean anyChanges() {
        return anyChanges;
    }

    /** The part: the count, then every section added, in order. */
    public WireOut done() {
        if (added != count) {
            throw new IllegalStateException("a part of " + count + " sections got " + added);
        }
        return out;
    }

    /** The sections of a part that {@link #done} (or {@link #append}) wrote, by operator id. */
    public static Map<String, Section> read(byte[] part) {
        WireIn in = new WireIn(ByteBuffer.wrap(part), -1);
        int count = in.getCount(12);
        Map<String, Section> sections = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            String id = in.getString();
            String descriptor = in.getString();
            int kind = in.getByte();
            if (kind != COMPLETE && kind != CHANGES) {
                throw in.malformed("section " + id + " of unknown kind " + kind);
            }
            int states = in.getCount(4);
            if (states == 0) {
                throw in.malformed("section " + id + " holds no state");
            }
            List<byte[]> list = new ArrayList<>(states);
            for (int s = 0; s < states; s++) {
                list.add(in.getBytes());
            }
            sections.put(id, new Section(descriptor, kind == COMPLETE, List.copyOf(list)));
        }
        if (in.remaining() != 0) {
            throw in.malformed(in.remaining() + " stray bytes after the last section");
        }
        return sections;
    }

    /** Whether every section of {@code part} is complete: it needs no part before it. */
    public static boolean complete(byte[] part) {
        return read(part).values().stream().allMatch(Section::complete);
    }

    /**
     * {@code newer} folded onto {@code older}, the same tasklet's part of the checkpoint before it:
     * a complete section of {@code newer} replaces the older one; a section of changes is added to
     * the older one's states (and stays changes only when the older one is, or is missing). Sections
     * only {@code older} has are dropped: the operator no longer writes state.
     */
    public static byte[] append(byte[] older, byte[] newer) {
        return appendAll(List.of(older, newer));
    }

    /**
     * A chain of one tasklet's parts, oldest first, folded in one pass: what {@link #append} of each
     * part onto the fold of those before it gives, with every part read once and the result written
     * once (folding a chain pair by pair rewrites the whole state at every step). A chain of one
     * part is that part.
     */
    public static byte[] appendAll(List<byte[]> chain) {
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("a chain of no parts");
        }
        if (chain.size() == 1) {
            return chain.get(0);
        }
        Map<String, Section> folded = read(chain.get(0));
        for (int i = 1; i < chain.size(); i++) {
            Map<String, Section> next = new LinkedHashMap<>();
            for (Map.Entry<String, Section> e : read(chain.get(i)).entrySet()) {
                Section now = e.getValue();
                Section was = folded.get(e.getKey());
                if (now.complete() || was == null || !was.descriptor().equals(now.descriptor())) {
                    next.put(e.getKey(), now);
                } else {
                    List<byte[]> states = new ArrayList<>(was.states().size() + now.states().size());
                    states.addAll(was.states());
                    states.addAll(now.states());
                    next.put(e.getKey(), new Section(now.descriptor(), was.complete(), states));
                }
            }
            folded = next;
        }
        return write(folded);
    }

    /**
     * Part {@code name} of the newest checkpoint of {@code chain} (each checkpoint a map of part
     * names to parts, oldest first), folded ({@link #appendAll}) over the checkpoints before it that
     * hold it without a gap: a part a checkpoint lacks was dropped there (its tasklet no longer
     * wrote state), and one that comes back starts anew. Null when the newest checkpoint lacks it.
     */
    public static byte[] foldNewest(List<Map<String, byte[]>> chain, String name) {
        int from = chain.size();
        while (from > 0 && chain.get(from - 1).containsKey(name)) {
            from--;
        }
        if (from == chain.size()) {
            return null;
        }
        List<byte[]> parts = new ArrayList<>(chain.size() - from);
        for (int i = from; i < chain.size(); i++) {
            parts.add(chain.get(i).get(name));
        }
        return appendAll(parts);
    }

    /** A part of {@code sections} as {@link #read} reads it. */
    static byte[] write(Map<String, Section> sections) {
        WireOut w = new WireOut(256);
        w.putInt(sections.size());
        for (Map.Entry<String, Section> e : sections.entrySet()) {
            Section s = e.getValue();
            w.putString(e.getKey()).putString(s.descriptor()).putByte(s.complete() ? COMPLETE : CHANGES).putInt(s.states().size());
            for (byte[] state : s.states()) {
                w.putBytes(state);
            }
        }
        return w.toBytes();
    }
}
