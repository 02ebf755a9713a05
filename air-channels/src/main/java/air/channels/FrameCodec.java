package air.channels;

import air.wire.FrameException;
import air.wire.WireOut;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The wire form of a frame: a 16-byte header (magic {@code AIRF}, version, channel, payload length,
 * CRC32C of the payload) and the payload. {@link #decode} validates every header field before it
 * trusts the length, so garbage on a socket is a clear {@link FrameException}, never an
 * out-of-memory or a hang.
 */
public final class FrameCodec {

    public static final int MAGIC = 0x41495246;
    public static final short VERSION = 1;
    public static final int HEADER_BYTES = WireOut.HEADER_ROOM;
    /** The default largest payload accepted: 64 MiB. */
    public static final int DEFAULT_MAX_PAYLOAD = 64 << 20;

    private final int maxPayload;

    public FrameCodec(int maxPayloadBytes) {
        if (maxPayloadBytes < 1) {
            throw new IllegalArgumentException("maxPayloadBytes must be >= 1, was " + maxPayloadBytes);
        }
        this.maxPayload = maxPayloadBytes;
    }

    public FrameCodec() {
        this(DEFAULT_MAX_PAYLOAD);
    }

    public int maxPayload() {
        return maxPayload;
    }

    /** Header and payload in one new buffer, positioned at 0; {@code payload} is not consumed. */
    public ByteBuffer encode(int channel, ByteBuffer payload) {
        checkChannel(channel);
        int length = payload.remaining();
        if (length > maxPayload) {
            throw new IllegalArgumentException("payload of " + length + " bytes exceeds the limit of " + maxPayload);
        }
        ByteBuffer out = ByteBuffer.allocate(HEADER_BYTES + length).order(ByteOrder.BIG_ENDIAN);
        out.putInt(MAGIC).putShort(VERSION).putShort((short) channel).putInt(length).putInt(crc(payload));
        out.put(payload.duplicate());
        return out.flip();
    }

    /**
     * Frames {@code out}'s payload in place: writes the header into the room {@link WireOut} keeps
     * in front of it and returns a view of the whole frame (positioned at 0) over the same array.
     * {@code out} is sealed: it must not be written to again.
     */
    public ByteBuffer seal(int channel, WireOut out) {
        checkChannel(channel);
        int length = out.size();
        if (length > maxPayload) {
            throw new IllegalArgumentException("payload of " + length + " bytes exceeds the limit of " + maxPayload);
        }
        byte[] bytes = out.sealForFraming();
        ByteBuffer frame = ByteBuffer.wrap(bytes, 0, out.frameLength()).slice().order(ByteOrder.BIG_ENDIAN);
        int checksum = crc(frame.duplicate().position(HEADER_BYTES));
        frame.putInt(0, MAGIC).putShort(4, VERSION).putShort(6, (short) channel).putInt(8, length).putInt(12, checksum);
        return frame;
    }

    /** Validates and decodes one whole frame received from {@code peer}. */
    public Frame decode(int peer, ByteBuffer wire) {
        ByteBuffer in = wire.duplicate().order(ByteOrder.BIG_ENDIAN);
        Header h = readHeader(peer, in);
        if (in.remaining() != h.length) {
            throw new FrameException(peer, "header announces " + h.length + " payload bytes but " + in.remaining() + " arrived");
        }
        ByteBuffer payload = in.slice();
        int actual = crc(payload);
        if (actual != h.checksum) {
            throw new FrameException(peer, String.format("checksum mismatch on channel %d: header %08x, payload %08x",
                    h.channel, h.checksum, actual));
        }
        return new Frame(peer, h.channel, payload.asReadOnlyBuffer());
    }

    /** The header fields, validated; {@code in} is left at the payload. */
    public Header readHeader(int peer, ByteBuffer in) {
        if (in.remaining() < HEADER_BYTES) {
            throw new FrameException(peer, in.remaining() + " bytes is shorter than the " + HEADER_BYTES + "-byte header");
        }
        int magic = in.getInt();
        if (magic != MAGIC) {
            throw new FrameException(peer, String.format("bad magic %08x (expected %08x 'AIRF'): not an AIR peer?", magic, MAGIC));
        }
        short version = in.getShort();
        if (version != VERSION) {
            throw new FrameException(peer, "protocol version " + version + ", this peer speaks " + VERSION);
        }
        int channel = in.getShort() & 0xFFFF;
        int length = in.getInt();
        if (length < 0 || length > maxPayload) {
            throw new FrameException(peer, "payload length " + length + " outside [0, " + maxPayload + "]");
        }
        return new Header(channel, length, in.getInt());
    }

    /** A decoded header. */
    public record Header(int channel, int length, int checksum) { }

    private static int crc(ByteBuffer payload) {
        CRC32C crc = new CRC32C();
        crc.update(payload.duplicate());
        return (int) crc.getValue();
    }

    static void checkChannel(int channel) {
        if (channel < 0 || channel > 0xFFFF) {
            throw new IllegalArgumentException("channel must be in [0, 65535], was " + channel);
        }
    }
}
