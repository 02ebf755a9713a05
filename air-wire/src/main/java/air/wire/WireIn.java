package air.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Reads what {@link WireOut} wrote. Every read is bounds-checked: a short or inconsistent payload
 * is a {@link FrameException} naming the peer, never an exception deep in a decoder or a huge allocation.
 */
public final class WireIn {

    private final ByteBuffer in;
    private final int peer;

    public WireIn(ByteBuffer payload, int peer) {
        this.in = payload.duplicate().order(ByteOrder.BIG_ENDIAN);
        this.peer = peer;
    }

    public int peer() {
        return peer;
    }

    public int getByte() {
        need(1);
        return in.get();
    }

    public int getInt() {
        need(4);
        return in.getInt();
    }

    public long getLong() {
        need(8);
        return in.getLong();
    }

    /** What {@link WireOut#putLong(long, int)} wrote: {@code width} bytes (1 to 8), big-endian, unsigned. */
    public long getLong(int width) {
        if (width < 1 || width > 8) {
            throw malformed("a value of " + width + " bytes (1 to 8 expected)");
        }
        need(width);
        long v = 0;
        for (int i = 0; i < width; i++) {
            v = v << 8 | in.get() & 0xff;
        }
        return v;
    }

    public double getDouble() {
        need(8);
        return in.getDouble();
    }

    public String getString() {
        return new String(getBytes(), StandardCharsets.UTF_8);
    }

    /** What {@link WireOut#putBytes} wrote. */
    public byte[] getBytes() {
        byte[] b = new byte[getCount(1)];
        in.get(b);
        return b;
    }

    /** A count of items of at least {@code minBytesEach} that must all still fit in the payload. */
    public int getCount(int minBytesEach) {
        int n = getInt();
        if (n < 0 || (long) n * Math.max(1, minBytesEach) > in.remaining()) {
            throw malformed("count " + n + " does not fit in the " + in.remaining() + " bytes left");
        }
        return n;
    }

    /** Passes over {@code n} bytes (what a reader does not need of a length-framed part). */
    public void skip(int n) {
        if (n < 0) {
            throw malformed("cannot skip " + n + " bytes");
        }
        need(n);
        in.position(in.position() + n);
    }

    public int remaining() {
        return in.remaining();
    }

    public FrameException malformed(String problem) {
        return new FrameException(peer, problem);
    }

    private void need(int n) {
        if (in.remaining() < n) {
            throw malformed("payload ends early: " + n + " byte(s) needed, " + in.remaining() + " left");
        }
    }

}
