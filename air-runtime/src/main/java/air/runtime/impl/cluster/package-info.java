/**
 * Cluster mode: what a job needs on top of a {@link air.channels.Transport} to run as symmetric
 * peers. The control plane carries plan fingerprints, aborts, end-of-job barriers and gathers on
 * the CONTROL channel; the peer monitor sends heartbeats and declares a silent peer lost, because
 * MPJ's blocking receive never notices a dead rank. The shuffle's frames are not its business: they
 * cross peers on data channels of their own, FIFO per (peer, edge), so hew-meld's "data before its
 * credit" holds ({@code impl.shuffle.ClusterShuffleOutput}, {@code DataChannel}).
 * No peer is special except that rank 0 collects gathers.
 */
package air.runtime.impl.cluster;

