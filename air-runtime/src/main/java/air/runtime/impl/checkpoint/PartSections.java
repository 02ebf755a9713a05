package air.runtime.impl.checkpoint;

import air.wire.WireIn;
import air.wire.WireOut;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The layout of one tasklet's part of a checkpoint: the state of each of its stateful operators
 * under the operator's id, so that a restore finds an operator's state by id, not by its place in
 * a chain. A part is a count, then per operator its id, its descriptor ({@link OperatorId}) and its
 * state as length-prefixed bytes; a vertex's head (source or inbound edge) comes first and holds
 * whether the tasklet had finished.
 */
public final class PartSections {

    /** One operator's saved state: what it was ({@link OperatorId#descriptor}) and its bytes. */
    public record Section(String descriptor, byte[] state) { }

    private final WireOut out = new WireOut(256);
    private final int count;
    private int added;

    /** A part of {@code count} sections. */
    public PartSections(int count) {
        this.count = count;
        out.putInt(count);
    }

    /** Adds operator {@code id}'s state, as written into {@code state}. */
    public PartSections add(OperatorId id, WireOut state) {
        ByteBuffer b = state.buffer();
        out.putString(id.id()).putString(id.descriptor()).putBytes(b.array(), b.arrayOffset() + b.position(), b.remaining());
        added++;
        return this;
    }

    /** The part: the count, then every section added, in order. */
    public WireOut done() {
        if (added != count) {
            throw new IllegalStateException("a part of " + count + " sections got " + added);
        }
        return out;
    }

    /** The sections of a part that {@link #done} wrote, by operator id. */
    public static Map<String, Section> read(byte[] part) {
        WireIn in = new WireIn(ByteBuffer.wrap(part), -1);
        int count = in.getCount(12);
        Map<String, Section> sections = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            String id = in.getString();
            String descriptor = in.getString();
            sections.put(id, new Section(descriptor, in.getBytes()));
        }
        return sections;
    }
}
