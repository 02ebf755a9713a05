/**
 * Replication, the second fault-tolerance strategy: every peer's state is copied at each
 * barrier-aligned snapshot into the memory of its next {@code k} live peers; when a peer dies, the
 * next live peer rebuilds the dead peer's tasklets from that copy and the others route its share
 * there. Nobody rolls back: producers keep what they sent since the newest replicated snapshot
 * (upstream backup) and send it again to the new host; the dead peer's sources replay from their
 * replicated positions; final instances drop what they already have, because every producer's
 * frames, credit and barriers reach each destination in ascending epoch order.
 *
 * <p>Needs a transport on which one peer's death leaves the other links working ({@code TcpTransport});
 * over MPJ Express niodev every link breaks, so there only checkpointing and rollback is offered.
 */
package air.runtime.impl.replica;

