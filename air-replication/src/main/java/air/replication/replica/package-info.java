/**
 * Replication, the second fault-tolerance strategy: every peer's state is copied at each
 * barrier-aligned snapshot into the memory of its next {@code k} live peers; when a peer dies, the
 * next live peer rebuilds the dead peer's tasklets from that copy and the others route its share
 * there. Nobody rolls back: producers keep what they sent since the newest replicated snapshot
 * (upstream backup) and send it again to the new host; the dead peer's sources replay from their
 * replicated positions; final instances drop what they already have, because every producer's
 * frames, credit and barriers reach each destination in ascending epoch order.
 *
 * <p>A copy counts only once it is <em>committed</em>: its peer's producers have sent the
 * snapshot's barrier everywhere and every live peer confirmed it received what came before
 * ({@link air.replication.replica.BarrierDelivery}); a takeover resumes only from a committed copy.
 * Otherwise records and the barrier still in a dying peer's send queue would be lost, since the
 * producers resume after them.
 *
 * <p>Why it is a module of its own: the runtime does not depend on it. It finds this package
 * through {@code air.runtime.ft.ReplicationProvider} ({@link air.replication.replica.ReplicationModule},
 * registered in {@code META-INF/services}) only when a job asks for replicas, and talks to it through
 * {@code air.runtime.ft.FaultTolerance} and {@code air.runtime.ft.ShuffleWiring}; an application
 * without replicas need not have this module.
 *
 * <p>Needs a transport on which one peer's death leaves the other links working ({@code TcpTransport});
 * over MPJ Express niodev every link breaks, so there only checkpointing and rollback is offered.
 */
package air.replication.replica;

