package air.wire;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growable big-endian byte writer for frame payloads: primitives written directly, no Java
 * serialization. It keeps room for a frame header in front of the payload, so that a transport
 * can frame it in place instead of copying it.
 */
public final class WireOut {

    /** Bytes kept free in front of the payload for a frame header (the transports' frame codec fills them). */
    public static final int HEADER_ROOM = 16;

    /** Big-endian ints and longs in one store each (what {@link ByteBuffer} writes, without a buffer object). */
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private byte[] bytes;
    private int size = HEADER_ROOM;
    private boolean sealed;

    public WireOut(int initialCapacity) {
        bytes = new byte[HEADER_ROOM + Math.max(16, initialCapacity)];
    }

    /** Room for {@code more} bytes: a check small enough to inline into every put; growing is out of line. */
    private void ensure(int more) {
        if (sealed || size + more > bytes.length) {
            grow(more);
        }
    }

    private void grow(int more) {
        if (sealed) {
            throw new IllegalStateException("this WireOut was sent: its bytes belong to the transport now");
        }
        if (size + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
        }
    }

    /**
     * Makes room for {@code more} bytes at once, when a writer knows roughly how much it is about to
     * write (a frame of n entries): one growth to the size needed instead of a doubling and a copy
     * of everything written so far at each step.
     */
    public WireOut reserve(int more) {
        ensure(more);
        return this;
    }

    public WireOut putByte(int v) {
        ensure(1);
        bytes[size++] = (byte) v;
        return this;
    }

    public WireOut putInt(int v) {
        ensure(4);
        INT.set(bytes, size, v);
        size += 4;
        return this;
    }

    public WireOut putLong(long v) {
        ensure(8);
        LONG.set(bytes, size, v);
        size += 8;
        return this;
    }

    /**
     * The low {@code width} bytes of {@code v} (1 to 8), big-endian: a column of values that all fit
     * in fewer than eight bytes (small keys, counts) takes only what they need. One eight-byte store
     * and a shorter step, no loop: the bytes past {@code width} are overwritten by the next put.
     */
    public WireOut putLong(long v, int width) {
        if (width < 1 || width > 8) {
            throw new IllegalArgumentException("a width of 1 to 8 bytes, not " + width);
        }
        ensure(8);
        LONG.set(bytes, size, v << (64 - 8 * width));
        size += width;
        return this;
    }

    /** The fewest bytes (1 to 8) that hold {@code bits} as {@link #putLong(long, int)} writes it: for the OR of a column's values. */
    public static int widthOf(long bits) {
        return Math.max(1, (71 - Long.numberOfLeadingZeros(bits)) / 8);
    }

    public WireOut putDouble(double v) {
        return putLong(Double.doubleToRawLongBits(v));
    }

    public WireOut putString(String s) {
        return putBytes(s.getBytes(StandardCharsets.UTF_8));
    }

    /** A length-prefixed byte array. */
    public WireOut putBytes(byte[] b) {
        putInt(b.length);
        ensure(b.length);
        System.arraycopy(b, 0, bytes, size, b.length);
        size += b.length;
        return this;
    }

    /** {@code len} bytes of {@code b} from {@code off}, length-prefixed: what {@link WireIn#getBytes} reads. */
    public WireOut putBytes(byte[] b, int off, int len) {
        putInt(len);
        ensure(len);
        System.arraycopy(b, off, bytes, size, len);
        size += len;
        return this;
    }

    /**
     * A mark at the end of what is written so far, for {@link #truncate}, {@link #putIntAt} and
     * {@link #putByteAt}: a writer that decides after writing (a length known only at the end, a
     * section that turns out not to be needed) patches or drops bytes in place instead of writing
     * into a second buffer and copying it over.
     */
    public int mark() {
        return size;
    }

    /**
     * Empties this writer, keeping its array, so that a writer of large, repeated payloads (a
     * tasklet's checkpoint parts) fills the same memory each time instead of allocating and zeroing
     * a new array per payload; refused once the bytes were handed to a transport.
     */
    public WireOut clear() {
        ensure(0);
        size = HEADER_ROOM;
        return this;
    }

    /** Bytes this writer holds room for before it grows. */
    public int capacity() {
        return bytes.length - HEADER_ROOM;
    }

    /** Drops everything written after {@code mark}. */
    public void truncate(int mark) {
        if (mark < HEADER_ROOM || mark > size) {
            throw new IllegalArgumentException("mark " + mark + " outside [" + HEADER_ROOM + ", " + size + "]");
        }
        ensure(0);
        size = mark;
    }

    /** Overwrites the four bytes at {@code mark} (written before, e.g. as a placeholder) with {@code v}. */
    public void putIntAt(int mark, int v) {
        checkWritten(mark, 4);
        INT.set(bytes, mark, v);
    }

    /** Overwrites the byte at {@code mark} with {@code v}. */
    public void putByteAt(int mark, int v) {
        checkWritten(mark, 1);
        bytes[mark] = (byte) v;
    }

    private void checkWritten(int mark, int length) {
        ensure(0);
        if (mark < HEADER_ROOM || mark + length > size) {
            throw new IllegalArgumentException("bytes [" + mark + ", " + (mark + length) + ") not written yet (written up to " + size + ")");
        }
    }

    /** Payload bytes written so far. */
    public int size() {
        return size - HEADER_ROOM;
    }

    /** A copy of the payload written so far, exactly as long: for a caller that keeps the bytes while this writer goes on. */
    public byte[] toBytes() {
        return Arrays.copyOfRange(bytes, HEADER_ROOM, size);
    }

    /** The payload written so far, without copying; valid until the next write. */
    public ByteBuffer buffer() {
        return ByteBuffer.wrap(bytes, HEADER_ROOM, size - HEADER_ROOM).slice();
    }

    /** Hands header room and payload to a frame codec, which writes the header in place; no writes after that. */
    public byte[] sealForFraming() {
        sealed = true;
        return bytes;
    }

    /** The payload, for a transport that copies it; no writes after that either. */
    public ByteBuffer sealForCopy() {
        ByteBuffer payload = buffer();
        sealed = true;
        return payload;
    }

    /** Header room plus payload: the length of the frame sealed in place. */
    public int frameLength() {
        return size;
    }
}
