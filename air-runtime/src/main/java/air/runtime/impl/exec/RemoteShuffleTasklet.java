package air.runtime.impl.exec;

import air.channels.Frame;
import air.channels.Transport;
import air.runtime.impl.shuffle.DataChannel;
import air.runtime.impl.shuffle.HostedInboxes;
import air.runtime.impl.shuffle.Inbox;
import air.runtime.impl.shuffle.ShuffleItem;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.wire.WireIn;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 *
 * <p>A frame another cluster job sent (its envelope, {@link DataChannel}, names another job: one
 * that ended on a reused cluster left it queued or in flight) is dropped before any other check,
 * counted ({@code air.shuffle.stale.frames}, and in {@link #position}) and logged once.
 */
final class RemoteShuffleTasklet extends Tasklet {

    private static final Logger LOG = LoggerFactory.getLogger(RemoteShuffleTasklet.class);

    private final Transport transport;
    private final DataChannel channel;
    private final HostedInboxes hosted;
    private final ShuffleItemCodec codec;
    private final int producersPerPeer;
    /** The number of this edge's first producer at the vertex it feeds (edges into one vertex share a numbering). */
    private final int producerBase;
    private final boolean fixedPlacement;
    /** Where the count of stale frames goes, registered at the first one. */
    private final MeterRegistry registry;
    private long frames;
    /** Frames of other jobs dropped. */
    private long stale;
    private volatile boolean stopped;

    /**
     * @param fixedPlacement no replication: producers stay on their peers, and the tasklet ends
     *                       after every remote producer's end of stream to every instance here
     */
    RemoteShuffleTasklet(JobContext job, String name, Transport transport, DataChannel channel, ShuffleItemCodec codec, int producersPerPeer,
                         int producerBase, HostedInboxes hosted, boolean fixedPlacement, MeterRegistry registry) {
        super(job, name);
        this.transport = transport;
        this.channel = channel;
        this.codec = codec;
        this.producersPerPeer = producersPerPeer;
        this.producerBase = producerBase;
        this.hosted = hosted;
        this.fixedPlacement = fixedPlacement;
        this.registry = registry;
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
            long sender = DataChannel.senderJob(in);
            if (sender != channel.job()) {
                dropStale(f.peer(), sender);
                continue;
            }
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

    /** A frame of cluster job {@code sender}, not of this one, came from {@code peer}: dropped and counted, the first one logged. */
    private void dropStale(int peer, long sender) {
        if (stale++ == 0) {
            LOG.warn("job '{}' (cluster job {}): dropped a frame of cluster job {} from peer {} on channel {}: a job that ended on this "
                    + "cluster left it queued or in flight; later ones are only counted (air.shuffle.stale.frames)", job.jobName(),
                    channel.job(), sender, peer, channel.channel());
        }
        Counter.builder("air.shuffle.stale.frames").tag("job", job.jobName()).register(registry).increment();
    }

    /** The next frame of this edge, or null after a short wait (so that cancellation is seen). */
    private Frame nextFrame() {
        job.checkCancelled();
        Frame f;
        try {
            f = transport.receive(channel.channel(), Duration.ofMillis(100));
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
        return "frame #" + frames + " on channel " + channel.channel() + (stale > 0 ? ", " + stale + " stale frame(s) of other jobs dropped" : "");
    }
}
