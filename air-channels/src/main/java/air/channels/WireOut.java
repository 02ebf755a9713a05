package air.channels;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** A growable big-endian byte writer for frame payloads: primitives written directly, no Java serialization. */
public final class WireOut {

    private byte[] bytes;
    private int size;

    public WireOut(int initialCapacity) {
        bytes = new byte[Math.max(16, initialCapacity)];
    }

    private void ensure(int more) {
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

    public int size() {
        return size;
    }

    /** The bytes written so far, without copying; valid until the next write. */
    public ByteBuffer buffer() {
        return ByteBuffer.wrap(bytes, 0, size);
    }
}
