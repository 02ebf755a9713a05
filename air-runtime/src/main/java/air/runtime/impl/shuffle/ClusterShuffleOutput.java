package air.runtime.impl.shuffle;

import air.channels.Transport;

/**
 * A shuffle edge across peers as one upstream instance sees it: destination {@code d} lives on
 * peer {@code d / workers}; local ones get the item in their inbox, remote ones an encoded frame
 * on the edge's channel (FIFO per sender and channel, so each item keeps its place), in the job's
 * envelope ({@link DataChannel}).
 */
public final class ClusterShuffleOutput implements ShuffleOutput {

    private final int producer;
    private final Inbox[] local;
    private final int self;
    private final int destinations;
    private final Transport transport;
    private final DataChannel channel;
    private final ShuffleItemCodec codec;

    public ClusterShuffleOutput(int producer, Inbox[] local, Transport transport, DataChannel channel, ShuffleItemCodec codec) {
        this.producer = producer;
        this.local = local;
        this.self = transport.self();
        this.destinations = local.length * transport.peers();
        this.transport = transport;
        this.channel = channel;
        this.codec = codec;
    }

    @Override
    public int producer() {
        return producer;
    }

    @Override
    public int destinations() {
        return destinations;
    }

    @Override
    public void send(int destination, ShuffleItem item) {
        int peer = destination / local.length;
        if (peer == self) {
            local[destination - self * local.length].offer(item);
            return;
        }
        transport.send(peer, channel.channel(), channel.encode(destination, item, codec));
    }
}
