/**
 * The one binary encoding every layer shares: frames on the wire, progress state (credit ledgers,
 * watermark trackers) and operator snapshots. It sits below everything so that progress tracking
 * ({@code air-hewmeld}) can snapshot itself without depending on the transports, and so that a
 * malformed payload is always reported the same way: a {@link air.wire.FrameException} naming the
 * peer it came from, never an exception deep inside a decoder or a huge allocation.
 */
package air.wire;

