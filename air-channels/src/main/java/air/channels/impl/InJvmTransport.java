package air.channels.impl;

import air.channels.Frame;
import air.channels.FrameCodec;
import air.channels.InJvmTransports;
import air.channels.Transport;
import air.wire.WireOut;
import java.io.EOFException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.function.IntConsumer;

/**
 * One peer of an in-JVM network: frames are encoded, handed over through a bounded JCTools queue
 * per (receiver, channel) and validated on receipt, exactly like frames off a socket. Senders
 * park while the queue is full; a receiver parks until a frame arrives or its timeout passes.
 * One thread receives per channel.
 *
 * <p>A peer can be lost as a killed process is ({@link #crash}): its frames stop at once, sends
 * to it fail (those blocked waiting for room too), its own blocked calls wake with an error, and
 * every other peer hears of the broken link on a thread of its own, as a TCP peer's receiver
 * hears the end of a connection. Only the links to the lost peer break; the others keep working,
 * so a network built to {@linkplain #survivesPeerLoss survive a loss} carries replication's
 * takeover. Frames a peer handed over before it was lost are still delivered, as bytes already in
 * a socket's receive buffer are. A peer that {@linkplain #close closes} instead <em>leaves</em>:
 * the others hear a departure ({@link #onDeparture}), never a broken link.
 */
public final class InJvmTransport implements Transport {

    /** An encoded frame in flight and its sender. */
    private record Wire(int sender, ByteBuffer bytes) { }

    private final int self;
    private final InJvmTransport[] network;
    private final FrameCodec codec;
    private final int capacity;
    private final boolean survivesPeerLoss;
    private final InJvmTransports.SendHook hook;
    private final ConcurrentHashMap<Integer, ParkingQueue<Wire>> inbound = new ConcurrentHashMap<>();
    private final LinkFailures links;
    /** Threads that told this peer's listeners of a broken link; {@link #close} waits for them. */
    private final CopyOnWriteArrayList<Thread> notifiers = new CopyOnWriteArrayList<>();
    private volatile boolean closed;
    /** Why this peer was lost ({@link #crash}); null while it lives. */
    private volatile String crashed;

    private InJvmTransport(int self, InJvmTransport[] network, FrameCodec codec, int capacity, boolean survivesPeerLoss,
                           InJvmTransports.SendHook hook) {
        this.self = self;
        this.network = network;
        this.codec = codec;
        this.capacity = capacity;
        this.survivesPeerLoss = survivesPeerLoss;
        this.hook = hook;
        this.links = new LinkFailures(network.length);
    }

    /** A network of {@code peers} connected transports, rank {@code i} at index {@code i}, that survives a peer's loss. */
    public static InJvmTransport[] network(int peers, int queueCapacity, FrameCodec codec) {
        return network(peers, queueCapacity, codec, true, InJvmTransports.SendHook.NONE);
    }

    /**
     * A network of {@code peers} connected transports. {@code survivesPeerLoss} is what
     * {@link #survivesPeerLoss()} answers (false: the runtime treats the network as MPJ niodev, whose
     * links all break with one rank, and refuses replication over it); {@code hook} is called on
     * the sending thread before each frame is handed over.
     */
    public static InJvmTransport[] network(int peers, int queueCapacity, FrameCodec codec, boolean survivesPeerLoss,
                                           InJvmTransports.SendHook hook) {
        if (peers < 1) {
            throw new IllegalArgumentException("peers must be >= 1, was " + peers);
        }
        if (queueCapacity < 2) {
            throw new IllegalArgumentException("queueCapacity must be >= 2, was " + queueCapacity);
        }
        if (hook == null) {
            throw new IllegalArgumentException("hook is null (InJvmTransports.SendHook.NONE for none)");
        }
        InJvmTransport[] network = new InJvmTransport[peers];
        for (int i = 0; i < peers; i++) {
            network[i] = new InJvmTransport(i, network, codec, queueCapacity, survivesPeerLoss, hook);
        }
        return network;
    }

    @Override
    public int self() {
        return self;
    }

    @Override
    public int peers() {
        return network.length;
    }

    @Override
    public boolean survivesPeerLoss() {
        return survivesPeerLoss;
    }

    @Override
    public void send(int peer, int channel, ByteBuffer payload) {
        checkOpen();
        checkRange(peer);
        sendWire(peer, channel, codec.encode(channel, payload));
    }

    @Override
    public void send(int peer, int channel, WireOut payload) {
        checkOpen();
        checkRange(peer);
        sendWire(peer, channel, codec.seal(channel, payload));
    }

    /** Puts raw bytes on the wire as if they were a frame: for tests of the receiver's validation. */
    public void sendWire(int peer, int channel, ByteBuffer wire) {
        checkOpen();
        links.requireIntact(peer);
        InJvmTransport target = network[peer];
        if (target.closed) {
            throw new IllegalStateException("peer " + peer + " is closed");
        }
        hook.beforeSend(self, peer, channel);
        checkOpen(); // the hook may have lost this peer
        target.inboundOf(channel).offer(new Wire(self, wire), () -> closed || target.closed || links.isBroken(peer),
                "transport of peer " + self + " is closed or its link to peer " + peer + " broke");
    }

    /** A send hands its frame straight to the receiver's queue: once it returned, the frame is there. */
    @Override
    public CompletableFuture<Void> delivered(int peer) {
        try {
            checkOpen();
            checkRange(peer);
            links.requireIntact(peer);
            if (network[peer].closed) {
                throw new IllegalStateException("peer " + peer + " is closed");
            }
        } catch (IllegalStateException | IllegalArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public Frame receive(int channel, Duration timeout) throws InterruptedException {
        checkOpen();
        Wire wire = inboundOf(channel).poll(timeout.toNanos(), this::isClosed);
        checkOpen();
        return wire == null ? null : codec.decode(wire.sender(), wire.bytes());
    }

    /** Drops the frames queued for this peer on {@code channel}; senders parked on the full queue go on. */
    @Override
    public void discard(int channel) {
        ParkingQueue<Wire> q = inbound.get(channel);
        if (q != null) {
            q.clear();
        }
    }

    @Override
    public void onLinkFailure(BiConsumer<Integer, Throwable> listener) {
        links.listen(listener);
    }

    /** Departures are told on the thread of the peer that closes, before its {@link #close} returns. */
    @Override
    public void onDeparture(IntConsumer listener) {
        links.listenDepartures(listener);
    }

    /**
     * Gives up on {@code peer}: sends to it fail from now on, including those blocked waiting for
     * room; the lost peer's side of the link breaks too, as a closed socket's does.
     */
    @Override
    public void markLost(int peer, String why) {
        LinkFailures.checkPeer(peer, network.length, self);
        if (links.mark(peer, new IllegalStateException("peer " + peer + " lost: " + why))) {
            wakeSendersTo(peer);
            network[peer].linkBroke(self, new EOFException("peer " + self + " closed the connection"));
        }
    }

    /**
     * Loses this peer as a killed process is lost: no frame of it is handed over from now on, its
     * blocked receivers and senders wake with an error naming {@code why}, and every other live
     * peer hears, on a thread of its own, that its link to this one broke.
     */
    public void crash(String why) {
        if (crashed != null) {
            return;
        }
        crashed = why;
        closed = true;
        inbound.values().forEach(ParkingQueue::wakeAll);
        for (InJvmTransport other : network) {
            if (other != this) {
                other.wakeSendersTo(self);
                other.linkBroke(self, new EOFException("peer " + self + " closed the connection (" + why + ")"));
            }
        }
    }

    /** Whether {@link #crash} lost this peer. */
    public boolean isCrashed() {
        return crashed != null;
    }

    /** The link to {@code peer} broke: marks it and tells the listeners on a thread of its own, unless this peer is gone. */
    private void linkBroke(int peer, Throwable why) {
        if (closed || !links.mark(peer, why)) {
            return;
        }
        wakeSendersTo(peer);
        Thread t = Thread.ofPlatform().daemon().name("air-injvm-link-" + self + "-to-" + peer).unstarted(() -> links.tell(peer, why));
        notifiers.add(t);
        t.start();
    }

    /** {@code peer} closed its transport: its link closes as a departure, not a failure, unless this peer is gone or it already broke. */
    private void peerLeft(int peer) {
        if (!closed && links.depart(peer)) {
            wakeSendersTo(peer);
        }
    }

    /** Callers of this peer blocked sending to {@code peer} re-check and find the link broken. */
    private void wakeSendersTo(int peer) {
        network[peer].inbound.values().forEach(ParkingQueue::wakeAll);
    }

    private ParkingQueue<Wire> inboundOf(int channel) {
        return inbound.computeIfAbsent(channel, c -> new ParkingQueue<>(capacity));
    }

    private void checkRange(int peer) {
        if (peer < 0 || peer >= network.length) {
            throw new IllegalArgumentException("peer must be in [0, " + network.length + "), was " + peer);
        }
    }

    private void checkOpen() {
        String lost = crashed;
        if (lost != null) {
            throw new IllegalStateException("transport of peer " + self + " is closed: the peer was lost (" + lost + ")");
        }
        if (closed) {
            throw new IllegalStateException("transport of peer " + self + " is closed");
        }
    }

    /**
     * Closes this peer's end; blocked receivers wake with an error, and every other live peer hears
     * that this one left. Waits (up to 5 s) for the link-failure notices it started.
     */
    @Override
    public void close() {
        boolean leaving = !closed; // not after a crash, nor twice
        closed = true;
        inbound.values().forEach(ParkingQueue::wakeAll);
        if (leaving) {
            for (InJvmTransport other : network) {
                if (other != this) {
                    other.peerLeft(self);
                }
            }
        }
        long deadline = System.nanoTime() + 5_000_000_000L;
        for (Thread t : notifiers) {
            if (t == Thread.currentThread()) {
                continue; // a listener that closes the transport
            }
            try {
                t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    boolean isClosed() {
        return closed;
    }
}
