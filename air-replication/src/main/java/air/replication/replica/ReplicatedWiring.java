package air.replication.replica;

import air.runtime.ft.ShuffleWiring;
import air.runtime.impl.shuffle.DataChannel;
import air.runtime.impl.shuffle.HostedInboxes;
import air.runtime.impl.shuffle.Inbox;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.runtime.impl.shuffle.ShuffleOutput;

/** Replication's shuffles: instances follow the placement, and every output keeps its upstream-backup log. */
final class ReplicatedWiring implements ShuffleWiring {

    private final ReplicationContext replication;

    ReplicatedWiring(ReplicationContext replication) {
        this.replication = replication;
    }

    @Override
    public void hosted(int vertex, int instances, int instance, Inbox inbox) {
        replication.hostedFor(vertex, instances).host(instance, inbox);
    }

    @Override
    public HostedInboxes hostedInboxes(int vertex, int instances) {
        return replication.hostedFor(vertex, instances);
    }

    @Override
    public ShuffleOutput remoteOutput(int producer, int vertex, Inbox[] localDestinations, int peers, DataChannel channel,
                                      ShuffleItemCodec codec) {
        ReplicatedShuffleOutput out = new ReplicatedShuffleOutput(producer, localDestinations.length, channel, codec,
                replication.hostedFor(vertex, localDestinations.length * peers), replication);
        replication.outputs().add(out);
        return out;
    }

    @Override
    public boolean receiversOutliveTasklets() {
        return true;
    }

    @Override
    public int hostOf(int block) {
        return replication.placement().hostOf(block);
    }
}
