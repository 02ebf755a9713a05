package air.channels;

import java.nio.ByteBuffer;

/** A received frame: who sent it, on which channel, and its payload (read-only, positioned at 0). */
public record Frame(int peer, int channel, ByteBuffer payload) {
}
