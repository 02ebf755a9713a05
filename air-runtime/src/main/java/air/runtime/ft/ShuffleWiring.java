package air.runtime.ft;

import air.channels.Transport;
import air.runtime.impl.shuffle.ClusterShuffleOutput;
import air.runtime.impl.shuffle.DataChannel;
import air.runtime.impl.shuffle.HostedInboxes;
import air.runtime.impl.shuffle.Inbox;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.runtime.impl.shuffle.ShuffleOutput;
import java.util.HashMap;
import java.util.Map;

/**
 * How a job's shuffles cross peers, given by its fault-tolerance strategy: {@link #fixed} (every
 * instance stays on its peer) or the replication module's (a dead peer's instances move to the peer
 * that takes them over, and producers keep an upstream-backup log). The graph asks it instead of testing
 * which strategy runs.
 */
public interface ShuffleWiring {

    /** An inbox of final vertex {@code vertex}, global instance {@code instance} of {@code instances}, was built on this peer. */
    void hosted(int vertex, int instances, int instance, Inbox inbox);

    /** The inboxes of final vertex {@code vertex} on this peer, by global instance, which the remote receivers fill. */
    HostedInboxes hostedInboxes(int vertex, int instances);

    /**
     * The sending end of the shuffle on {@code channel} (the edge's channel and the cluster job, whose
     * number every frame carries) from {@code producer} to final vertex {@code vertex} across peers.
     */
    ShuffleOutput remoteOutput(int producer, int vertex, Inbox[] localDestinations, int peers, DataChannel channel, ShuffleItemCodec codec);

    /** Whether the remote receivers outlive this peer's tasklets (instances move, so they run until the job ends everywhere). */
    boolean receiversOutliveTasklets();

    /** The peer block {@code block}'s instances run on now. */
    int hostOf(int block);

    /** Instances stay where they were built. */
    static ShuffleWiring fixed(Transport transport) {
        Map<Integer, HostedInboxes> hosted = new HashMap<>();
        return new ShuffleWiring() {
            @Override
            public void hosted(int vertex, int instances, int instance, Inbox inbox) {
                hostedInboxes(vertex, instances).host(instance, inbox);
            }

            @Override
            public HostedInboxes hostedInboxes(int vertex, int instances) {
                return hosted.computeIfAbsent(vertex, v -> new HostedInboxes(instances));
            }

            @Override
            public ShuffleOutput remoteOutput(int producer, int vertex, Inbox[] localDestinations, int peers, DataChannel channel,
                                              ShuffleItemCodec codec) {
                return new ClusterShuffleOutput(producer, localDestinations, transport, channel, codec);
            }

            @Override
            public boolean receiversOutliveTasklets() {
                return false;
            }

            @Override
            public int hostOf(int block) {
                return block;
            }
        };
    }
}
