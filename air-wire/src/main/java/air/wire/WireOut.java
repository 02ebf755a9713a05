package air.wire;

import java.nio.ByteBuffer;
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

    private byte[] bytes;
    private int size = HEADER_ROOM;
    private boolean sealed;

    public WireOut(int initialCapacity) {
        bytes = new byte[HEADER_ROOM + Math.max(16, initialCapacity)];
    }

    private void ensure(int more) {
        if (sealed) {
            throw new IllegalStateException("this WireOut was sent: its bytes belong to the transport now");
        }
        if (size + more > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + more));
        }
    }

    public WireOut putByte(int v) {
        ensure(1);
        bytes[size++] = (byte) v;
        return this;
    }

    public WireOut putInt(int v) {
        ensure(4);
        bytes[size] = (byte) (v >>> 24);
        bytes[size + 1] = (byte) (v >>> 16);
        bytes[size + 2] = (byte) (v >>> 8);
        bytes[size + 3] = (byte) v;
        size += 4;
        return this;
    }

    public WireOut putLong(long v) {
        putInt((int) (v >>> 32));
        return putInt((int) v);
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

    /** Payload bytes written so far. */
    public int size() {
        return size - HEADER_ROOM;
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
