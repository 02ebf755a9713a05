package air.replication.replica;

import air.runtime.impl.cluster.ClusterSession;
import air.runtime.impl.shuffle.HostedInboxes;
import io.micrometer.core.instrument.Counter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * What the tasklets of one replicated job on this peer share: the cluster session, where each
 * block runs, the inboxes hosted here per final vertex, the replica service, every shuffle
 * output (which must send their logs again when a destination moves), what a snapshot's commit
 * waits for (the outputs' barriers delivered), and the bound on each output's upstream-backup log.
 */
public record ReplicationContext(ClusterSession session, Placement placement, Map<Integer, HostedInboxes> hosted,
                                 ReplicaService replicas, List<ReplicatedShuffleOutput> outputs, BarrierDelivery delivery,
                                 LogBound logBound) {

    /**
     * How far an upstream-backup log may grow before its producer is held back ({@code maxBytes}),
     * whether the job has stopped (a held producer lets go), and how often producers were held.
     */
    public record LogBound(long maxBytes, BooleanSupplier stopped, Counter holds) { }

    /** {@code delivery}: the one {@code replicas} commits with; it watches the outputs this context's wiring builds. */
    static ReplicationContext create(ClusterSession session, ReplicaService replicas, BarrierDelivery delivery, LogBound bound) {
        return new ReplicationContext(session, new Placement(session.peers()), new ConcurrentHashMap<>(),
                replicas, delivery.outputs(), delivery, bound);
    }

    /** The inboxes of final vertex {@code vertex}, created on first use. */
    public HostedInboxes hostedFor(int vertex, int globalInstances) {
        return hosted.computeIfAbsent(vertex, v -> new HostedInboxes(globalInstances));
    }

    /** Every output follows the placement now, sending its logs to destinations that moved. */
    public void catchUpOutputs() {
        for (ReplicatedShuffleOutput o : outputs) {
            o.catchUp();
        }
    }
}
