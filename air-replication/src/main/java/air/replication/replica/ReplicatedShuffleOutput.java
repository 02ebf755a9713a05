package air.replication.replica;

import air.channels.Transport;
import air.runtime.impl.shuffle.DataChannel;
import air.runtime.impl.shuffle.HostedInboxes;
import air.runtime.impl.shuffle.ShuffleItem;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.runtime.impl.shuffle.ShuffleOutput;
import air.wire.WireOut;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A shuffle edge across peers under replication, as one upstream instance sees it. Destinations
 * go where the {@link Placement} says. Everything sent to another peer is also kept, tagged with
 * the number of this producer's last barrier, until the destination's host has replicated a
 * snapshot taken after it (upstream backup). When a destination moves to a new host, what is kept
 * for it is sent there first, in order, before anything new; the new host drops what its restored
 * state already holds. A send to a peer that died is dropped: the log holds it.
 *
 * <p>The log is bounded: a data item sent while the log is over {@link ReplicationContext.LogBound}
 * waits (the producer is held back, releasing the output's lock) until replicated snapshots let
 * enough of it go. It waits only while some of the log is tagged before this producer's last
 * barrier — a snapshot already under way can trim that without this producer sending anything —
 * so a held producer never waits for a barrier it would have to send itself; past the bound the
 * log grows by at most what one interval sends after the last barrier. A hold lasts at most 5 s:
 * then the producer goes on above the bound with a WARN, rather than wait on a snapshot that
 * cannot complete (a soft bound: memory, never liveness, gives way).
 *
 * <p>It tells {@link BarrierDelivery} when it has sent a barrier, or its end of stream, to every
 * destination: a snapshot is committed only after that, and after what it sent before is delivered.
 */
public final class ReplicatedShuffleOutput implements ShuffleOutput {

    /**
     * Serialises sends, restores and catch-ups: a lock, not a monitor, because a send may park (a
     * full local inbox, a transport's backpressure) and a virtual thread parked inside a monitor
     * pins its carrier on JDK 21 to 23.
     */
    private final ReentrantLock lock = new ReentrantLock();
    private final int producer;
    private final int workers;
    private final int self;
    private final Transport transport;
    private final ReplicationContext replication;
    private final DataChannel channel;
    private final ShuffleItemCodec codec;
    private final Placement placement;
    private final HostedInboxes hosted;
    private final ReplicaService replicas;
    private final UpstreamLog log;
    private final int[] sentHost;
    private final ReplicationContext.LogBound bound;
    private final Condition room = lock.newCondition();
    /** The longest a producer is held back by its log's bound at once. */
    private static final long MAX_HOLD_NANOS = 5_000_000_000L;
    private static final Logger LOG = LoggerFactory.getLogger(ReplicatedShuffleOutput.class);
    private boolean warnedOverBound;
    private int seenVersion;
    private long lastBarrier;
    /** The newest barrier sent to every destination (or the checkpoint restored from); read by {@link BarrierDelivery}. */
    private volatile long barrierSent;
    /** The end of stream was sent to every destination: no barrier follows. */
    private volatile boolean ended;

    /** Producer {@code producer}'s output to the {@code hosted} instances of one vertex, {@code workers} per block. */
    public ReplicatedShuffleOutput(int producer, int workers, DataChannel channel, ShuffleItemCodec codec, HostedInboxes hosted,
                                   ReplicationContext replication) {
        this.replication = replication;
        this.bound = replication.logBound();
        this.producer = producer;
        this.workers = workers;
        this.transport = replication.session().transport();
        this.self = transport.self();
        this.channel = channel;
        this.codec = codec;
        this.placement = replication.placement();
        this.hosted = hosted;
        this.replicas = replication.replicas();
        this.log = new UpstreamLog(hosted.size());
        this.sentHost = new int[hosted.size()];
        this.seenVersion = placement.version();
        for (int d = 0; d < sentHost.length; d++) {
            sentHost[d] = placement.hostOf(d / workers);
        }
    }

    /** Restored from a checkpoint: what it sends next comes after that checkpoint's barrier. */
    @Override
    public void restoredAt(long id) {
        lock.lock();
        try {
            lastBarrier = id;
            barrierSent = id;
        } finally {
            lock.unlock();
        }
    }

    /** A barrier or the end of stream, once sent everywhere, is told to the delivery a snapshot's commit waits for. */
    @Override
    public void broadcast(ShuffleItem item) {
        ShuffleOutput.super.broadcast(item);
        if (item instanceof ShuffleItem.Barrier b) {
            barrierSent = b.id();
            replication.delivery().barrierSent();
        } else if (item instanceof ShuffleItem.EndOfStream) {
            ended = true;
            replication.delivery().barrierSent();
        }
    }

    /** Whether checkpoint {@code id}'s barrier (or this producer's end) has been sent to every destination. */
    boolean passed(long id) {
        return ended || barrierSent >= id;
    }

    @Override
    public int producer() {
        return producer;
    }

    @Override
    public int destinations() {
        return sentHost.length;
    }

    @Override
    public void send(int destination, ShuffleItem item) {
        lock.lock();
        try {
            sendLocked(destination, item);
        } finally {
            lock.unlock();
        }
    }

    private void sendLocked(int destination, ShuffleItem item) {
        if (seenVersion != placement.version()) {
            catchUpLocked();
        }
        if (item instanceof ShuffleItem.Barrier b) {
            lastBarrier = b.id();
            log.trim(d -> replicas.logCut(d / workers));
        }
        int host = sentHost[destination];
        if (host != self && log.bytes() > bound.maxBytes() && !(item instanceof ShuffleItem.Barrier)) {
            awaitRoom();
            // the lock was free meanwhile: a takeover may have moved the destination and replayed the log
            if (seenVersion != placement.version()) {
                catchUpLocked();
            }
            host = sentHost[destination];
        }
        if (host == self) {
            hosted.at(destination).offer(item);
            return;
        }
        log.add(destination, item, lastBarrier);
        transmit(host, destination, item);
    }

    /**
     * Holds the producer while the log is over its bound and a snapshot under way can still trim it,
     * for at most {@link #MAX_HOLD_NANOS}: past that it goes on above the bound, saying so once, so
     * that no producer ever waits forever on a snapshot that cannot complete without it.
     */
    private void awaitRoom() {
        boolean counted = false;
        long deadline = System.nanoTime() + MAX_HOLD_NANOS;
        while (log.bytes() > bound.maxBytes() && log.holdsBefore(lastBarrier) && !bound.stopped().getAsBoolean()) {
            if (!counted) {
                counted = true;
                bound.holds().increment();
            }
            if (System.nanoTime() > deadline) {
                if (!warnedOverBound) {
                    warnedOverBound = true;
                    LOG.warn("producer {}: its upstream-backup log holds {} bytes, over the bound of {}, and no replicated snapshot let "
                            + "it go within {} ms: it goes on above the bound (a slow replica or a stalled checkpoint)", producer,
                            log.bytes(), bound.maxBytes(), MAX_HOLD_NANOS / 1_000_000);
                }
                return;
            }
            try {
                room.awaitNanos(1_000_000L); // the lock is free meanwhile: catch-ups and restores go on; replication moves the cut
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            log.trim(d -> replicas.logCut(d / workers));
        }
    }

    /** Sends what is kept for each destination that moved to its new host, then follows the placement. */
    public void catchUp() {
        lock.lock();
        try {
            catchUpLocked();
        } finally {
            lock.unlock();
        }
    }

    private void catchUpLocked() {
        int version = placement.version();
        for (int d = 0; d < sentHost.length; d++) {
            int host = placement.hostOf(d / workers);
            if (host == sentHost[d]) {
                continue;
            }
            sentHost[d] = host;
            int destination = d;
            if (host == self) {
                log.replay(d, hosted.at(d)::offer);
                log.clear(d); // this producer and that instance now share a fate
            } else {
                log.replay(d, item -> transmit(host, destination, item));
            }
        }
        seenVersion = version;
    }

    private void transmit(int host, int destination, ShuffleItem item) {
        if (replication.session().isGone(host)) {
            return;
        }
        WireOut out = channel.encode(destination, item, codec);
        try {
            transport.send(host, channel.channel(), out);
        } catch (IllegalStateException e) {
            // the host died: its successor gets this from the log
        }
    }
}
