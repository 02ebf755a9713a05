package air.runtime.impl.exec;

import air.channels.Frame;
import air.channels.Transport;
import air.runtime.impl.ops.ShuffleItem;
import air.runtime.impl.ops.ShuffleItemCodec;
import air.wire.WireIn;
import java.time.Duration;

/**
 * The receiving end of a shuffle edge on one peer: decodes the frames other peers send on the
 * edge's channel and hands each item to the final instance it names among those hosted here; an
 * item for an instance that is not is a malformed frame naming its sender.
 *
 * <p>With fixed placement it also checks that the item's producer lives on the sending peer, and
 * ends once every remote producer has ended towards every instance here. Under replication
 * instances move (a peer takes over a dead one's, and its producers then send from there), so it
 * runs until told to {@link #stop}: a producer that took over a dead peer's share may repeat items
 * to instances that already finished (their inboxes drop them).
 */
final class RemoteShuffleTasklet extends Tasklet {

    private final Transport transport;
    private final int channel;
    private final HostedInboxes hosted;
    private final ShuffleItemCodec codec;
    private final int producersPerPeer;
    /** The number of this edge's first producer at the vertex it feeds (edges into one vertex share a numbering). */
    private final int producerBase;
    private final boolean fixedPlacement;
    private long frames;
    private volatile boolean stopped;

    /**
     * @param fixedPlacement no replication: producers stay on their peers, and the tasklet ends
     *                       after every remote producer's end of stream to every instance here
     */
    RemoteShuffleTasklet(JobContext job, String name, Transport transport, int channel, ShuffleItemCodec codec, int producersPerPeer,
                         int producerBase, HostedInboxes hosted, boolean fixedPlacement) {
        super(job, name);
        this.transport = transport;
        this.channel = channel;
        this.codec = codec;
        this.producersPerPeer = producersPerPeer;
        this.producerBase = producerBase;
        this.hosted = hosted;
        this.fixedPlacement = fixedPlacement;
    }

    /** Replication: the job ended on every live peer; returns within one receive timeout. */
    void stop() {
        stopped = true;
    }

    @Override
    protected void runBody() {
        int peers = transport.peers();
        long expectedEnds = fixedPlacement ? (long) (peers - 1) * producersPerPeer * (hosted.size() / peers) : Long.MAX_VALUE;
        long ends = 0;
        while (ends < expectedEnds && !stopped) {
            Frame f = nextFrame();
            if (f == null) {
                continue;
            }
            WireIn in = new WireIn(f.payload(), f.peer());
            ShuffleItemCodec.Addressed a = codec.read(in, producerBase + producersPerPeer * peers, hosted.size());
            int producerPeer = (a.item().producer() - producerBase) / producersPerPeer;
            Inbox inbox = hosted.at(a.destination());
            if (inbox == null || a.item().producer() < producerBase || fixedPlacement && producerPeer != f.peer()) {
                throw in.malformed("item from producer " + a.item().producer() + " (of peer " + producerPeer + ") for instance "
                        + a.destination() + ", which is not hosted on peer " + transport.self() + ": it does not belong on this link");
            }
            inbox.offer(a.item());
            if (a.item() instanceof ShuffleItem.EndOfStream) {
                ends++;
            }
        }
    }

    /** The next frame of this edge, or null after a short wait (so that cancellation is seen). */
    private Frame nextFrame() {
        job.checkCancelled();
        Frame f;
        try {
            f = transport.receive(channel, Duration.ofMillis(100));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            job.checkCancelled();
            throw new IllegalStateException("interrupted", e);
        }
        if (f != null) {
            frames++;
        }
        return f;
    }

    @Override
    protected String position() {
        return "frame #" + frames + " on channel " + channel;
    }
}
