package air.replication.replica;

import air.runtime.impl.cluster.ClusterSession;
import air.runtime.impl.exec.HostedInboxes;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What the tasklets of one replicated job on this peer share: the cluster session, where each
 * block runs, the inboxes hosted here per final vertex, the replica service, and every shuffle
 * output (which must send their logs again when a destination moves).
 */
public record ReplicationContext(ClusterSession session, Placement placement, Map<Integer, HostedInboxes> hosted,
                                 ReplicaService replicas, List<ReplicatedShuffleOutput> outputs) {

    public static ReplicationContext create(ClusterSession session, ReplicaService replicas) {
        return new ReplicationContext(session, new Placement(session.peers()), new ConcurrentHashMap<>(),
                replicas, new CopyOnWriteArrayList<>());
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
