package air.runtime.impl.exec;

import air.channels.Frame;
import air.channels.Transport;
import air.channels.WireIn;
import air.runtime.impl.ops.ShuffleItem;
import air.runtime.impl.ops.ShuffleItemCodec;
import java.time.Duration;

/**
 * The receiving end of a shuffle edge on one peer: decodes the frames other peers send on the
 * edge's channel and hands each item to the local final instance it names, until every remote
 * producer has ended towards every local instance. Validates addresses: an item must come from a
 * producer that lives on the sending peer and go to an instance that lives here.
 *
 * <p>Under replication instances move (a peer takes over a dead one's), so it looks the
 * destination up among the inboxes hosted here, and runs until told to {@link #stop}: a producer
 * that took over a dead peer's share may repeat items to instances that already finished (their
 * inboxes drop them).
 */
final class RemoteShuffleTasklet extends Tasklet {

    private final Transport transport;
    private final int channel;
    private final Inbox[] local;
    private final ShuffleItemCodec codec;
    private final int producersPerPeer;
    private long frames;
    private final air.runtime.impl.replica.HostedInboxes hosted;
    private volatile boolean stopped;

    RemoteShuffleTasklet(JobContext job, String name, Transport transport, int channel, Inbox[] local, ShuffleItemCodec codec,
                         int producersPerPeer) {
        super(job, name);
        this.transport = transport;
        this.channel = channel;
        this.local = local;
        this.codec = codec;
        this.producersPerPeer = producersPerPeer;
        this.hosted = null;
    }

    /** Replication: delivers to whatever instance is hosted here now, until {@link #stop}. */
    RemoteShuffleTasklet(JobContext job, String name, Transport transport, int channel, ShuffleItemCodec codec, int producersPerPeer,
                         air.runtime.impl.replica.HostedInboxes hosted) {
        super(job, name);
        this.transport = transport;
        this.channel = channel;
        this.local = null;
        this.codec = codec;
        this.producersPerPeer = producersPerPeer;
        this.hosted = hosted;
    }

    /** Replication: the job ended on every live peer; returns within one receive timeout. */
    void stop() {
        stopped = true;
    }

    private void runReplicated() {
        int producers = producersPerPeer * transport.peers();
        while (!stopped) {
            Frame f = nextFrame();
            if (f == null) {
                continue;
            }
            WireIn in = new WireIn(f.payload(), f.peer());
            ShuffleItemCodec.Addressed a = codec.read(in, producers, hosted.size());
            Inbox inbox = hosted.at(a.destination());
            if (inbox == null) {
                throw in.malformed("item from producer " + a.item().producer() + " for instance " + a.destination()
                        + ", which is not hosted on peer " + transport.self());
            }
            inbox.offer(a.item());
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
    protected void runBody() {
        if (hosted != null) {
            runReplicated();
            return;
        }
        int self = transport.self();
        int peers = transport.peers();
        long expectedEnds = (long) (peers - 1) * producersPerPeer * local.length;
        long ends = 0;
        while (ends < expectedEnds) {
            Frame f = nextFrame();
            if (f == null) {
                continue;
            }
            WireIn in = new WireIn(f.payload(), f.peer());
            ShuffleItemCodec.Addressed a = codec.read(in, producersPerPeer * peers, local.length * peers);
            int producerPeer = a.item().producer() / producersPerPeer;
            if (producerPeer != f.peer() || a.destination() / local.length != self) {
                throw in.malformed("item from producer " + a.item().producer() + " (of peer " + producerPeer + ") for instance "
                        + a.destination() + " (of peer " + a.destination() / local.length + ") does not belong on this link");
            }
            local[a.destination() - self * local.length].offer(a.item());
            if (a.item() instanceof ShuffleItem.EndOfStream) {
                ends++;
            }
        }
    }

    @Override
    protected String position() {
        return "frame #" + frames + " on channel " + channel;
    }
}
