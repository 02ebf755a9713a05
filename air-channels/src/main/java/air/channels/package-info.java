/**
 * The transport between peers: a small SPI ({@link air.channels.Transport}) the runtime uses for
 * shuffles, progress and heartbeats, the wire form of frames ({@link air.channels.FrameCodec}),
 * and the implementations. Many channels, no master: every peer talks to every other directly,
 * and control traffic has channels of its own so it never queues behind bulk data. Every frame is
 * validated on receipt, so a broken or hostile peer produces an error naming it, not a hang.
 */
package air.channels;

