package air.mpj;

import air.channels.Channels;
import air.channels.Frame;
import air.channels.FrameCodec;
import air.channels.Transport;
import air.channels.impl.LinkFailures;
import air.channels.impl.ParkingQueue;
import air.wire.FrameException;
import air.wire.WireOut;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transport over MPJ Express (niodev): every channel is an MPI tag, so control and heartbeats
 * never queue behind bulk data. MPJ is only called from platform threads of this class — per peer
 * one sender for control channels and one for data, per (peer, channel) one receiver, each posting
 * a plain blocking {@code Recv} (probes cost milliseconds per message in niodev). Callers, virtual
 * threads included, only touch queues.
 *
 * <p>A frame up to {@link #EAGER_BYTES} travels as one MPI message (header and payload); a larger
 * one as a header message followed by its payload, which the receiver reads into an array of
 * exactly the announced length after validating it. Every frame is checked by {@link FrameCodec}.
 */
public final class MpjTransport implements Transport {

    private static final Logger LOG = LoggerFactory.getLogger(MpjTransport.class);

    /** The largest frame (header included) sent as a single message; below MPJ's eager limit. */
    public static final int EAGER_BYTES = 128 * 1024 - 64;
    private static final int SEND_QUEUE = 64;
    private static final int IN_FLIGHT = 8;
    private static final int RECEIVE_QUEUE = 256;
    /** The bytes a lane's send queue, and a channel's receive queue, hold at most besides their count of frames (as over TCP). */
    private static final long QUEUE_BYTES = 64L << 20;
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /** What a receiver hands to {@link #receive}: a frame or the error it found. */
    private record Arrival(Frame frame, RuntimeException error) {

        long bytes() {
            return frame == null ? 0 : frame.payload().remaining();
        }
    }

    /** A whole frame: {@code wire[0, length)}. */
    private record Outgoing(int channel, byte[] wire, int length) { }

    private final Intracomm world;
    private final int self;
    private final int peers;
    private final FrameCodec codec;
    private final ParkingQueue<Outgoing>[][] outbound; // [peer][lane]
    private final ConcurrentHashMap<Integer, ParkingQueue<Arrival>> inbound = new ConcurrentHashMap<>();
    private final LinkFailures links;
    private final CopyOnWriteArrayList<Thread> threads = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    @SuppressWarnings({"unchecked", "rawtypes"}) // an array of generic queues
    private MpjTransport(FrameCodec codec) {
        this.world = MPI.COMM_WORLD;
        this.self = world.Rank();
        this.peers = world.Size();
        this.codec = codec;
        this.links = new LinkFailures(peers);
        this.outbound = new ParkingQueue[peers][2];
        for (int p = 0; p < peers; p++) {
            if (p == self) {
                continue;
            }
            for (int lane = 0; lane < 2; lane++) {
                outbound[p][lane] = new ParkingQueue<>(SEND_QUEUE, QUEUE_BYTES, Outgoing::length);
                int peer = p;
                int l = lane;
                start("air-mpj-send-" + p + (lane == 0 ? "-control" : "-data"), () -> sendLoop(peer, outbound[peer][l]));
            }
        }
    }

    /**
     * Joins the MPJ world as {@link MpjWorld#init} describes and starts the transport. At most once
     * per JVM (an MPJ limit).
     */
    public static MpjTransport start(MpjWorld world, FrameCodec codec) {
        world.init();
        MpjTransport t = new MpjTransport(codec);
        LOG.info("peer {} of {} joined over MPJ Express ({})", t.self, t.peers, world.describe());
        return t;
    }

    @Override
    public int self() {
        return self;
    }

    @Override
    public int peers() {
        return peers;
    }

    @Override
    public void send(int peer, int channel, ByteBuffer payload) {
        checkPeer(peer);
        enqueue(peer, channel, codec.encode(channel, payload).array(), -1); // a fresh array: no copy needed
    }

    @Override
    public void send(int peer, int channel, WireOut payload) {
        checkPeer(peer);
        ByteBuffer frame = codec.seal(channel, payload);
        enqueue(peer, channel, frame.array(), frame.limit());
    }

    /** Puts raw bytes on the wire as if they were a frame: for tests of the receiver's validation. */
    public void sendWire(int peer, int channel, ByteBuffer wire) {
        checkPeer(peer);
        byte[] bytes = new byte[wire.remaining()];
        wire.duplicate().get(bytes);
        enqueue(peer, channel, bytes, -1);
    }

    /** Queues {@code bytes[0, length)} (length -1: all of it) for the peer's sender thread. */
    private void enqueue(int peer, int channel, byte[] bytes, int length) {
        checkOpen();
        links.requireIntact(peer);
        int lane = channel < Channels.DATA_BASE ? 0 : 1;
        outbound[peer][lane].offer(new Outgoing(channel, bytes, length < 0 ? bytes.length : length), () -> closed || links.isBroken(peer),
                "transport of peer " + self + " is closed or its link to peer " + peer + " broke");
    }

    @Override
    public Frame receive(int channel, Duration timeout) throws InterruptedException {
        checkOpen();
        Arrival a = inboundOf(channel).poll(timeout.toNanos(), this::isClosed);
        checkOpen();
        if (a == null) {
            return null;
        }
        if (a.error != null) {
            throw a.error;
        }
        return a.frame;
    }

    /**
     * Drops the frames received on {@code channel} and not taken; its receiver threads waiting for
     * room go on. A channel never received on gets its receivers now: a peer's sends on it wait in
     * MPI until they are matched, so only receiving them (and dropping them) releases its senders.
     */
    @Override
    public void discard(int channel) {
        inboundOf(channel).clear();
    }

    @Override
    public void onLinkFailure(BiConsumer<Integer, Throwable> listener) {
        links.listen(listener);
    }

    private ParkingQueue<Arrival> inboundOf(int channel) {
        ParkingQueue<Arrival> q = inbound.get(channel);
        if (q != null) {
            return q;
        }
        synchronized (inbound) {
            q = inbound.get(channel);
            if (q == null) {
                q = new ParkingQueue<>(RECEIVE_QUEUE, QUEUE_BYTES, Arrival::bytes);
                inbound.put(channel, q);
                for (int p = 0; p < peers; p++) {
                    if (p != self) {
                        int peer = p;
                        ParkingQueue<Arrival> queue = q;
                        start("air-mpj-recv-" + p + "-ch" + channel, () -> receiveLoop(peer, channel, queue));
                    }
                }
            }
            return q;
        }
    }

    /** Makes sure frames on {@code channel} are being received (before the first {@link #receive}). */
    public void listen(int channel) {
        inboundOf(channel);
    }

    /**
     * Sends in order, keeping up to {@link #IN_FLIGHT} non-blocking sends outstanding so that the
     * socket never waits for the next message to be packed.
     */
    private void sendLoop(int peer, ParkingQueue<Outgoing> queue) {
        ArrayDeque<mpi.Request> inFlight = new ArrayDeque<>();
        try {
            while (!closed || queue.size() > 0 || !inFlight.isEmpty()) {
                Outgoing o = inFlight.isEmpty() ? queue.poll(POLL_NANOS, () -> closed && queue.size() == 0) : queue.poll(0, () -> false);
                if (o == null) {
                    if (!inFlight.isEmpty()) {
                        inFlight.poll().Wait();
                    }
                    continue;
                }
                if (o.length <= EAGER_BYTES) {
                    Outgoing message = coalesce(o, queue);
                    inFlight.add(world.Isend(message.wire, 0, message.length, MPI.BYTE, peer, o.channel));
                } else {
                    inFlight.add(world.Isend(o.wire, 0, FrameCodec.HEADER_BYTES, MPI.BYTE, peer, o.channel));
                    inFlight.add(world.Isend(o.wire, FrameCodec.HEADER_BYTES, o.length - FrameCodec.HEADER_BYTES, MPI.BYTE, peer, o.channel));
                }
                while (inFlight.size() > IN_FLIGHT) {
                    inFlight.poll().Wait();
                }
            }
        } catch (Throwable t) {
            if (!closed) {
                broken(peer, t);
            }
        }
    }

    /**
     * Packs {@code first} and the small frames queued right behind it on the same channel into one
     * message (MPJ costs tens of microseconds per message); order is kept. A frame of another channel
     * stays queued for the next message.
     */
    private Outgoing coalesce(Outgoing first, ParkingQueue<Outgoing> queue) throws InterruptedException {
        Outgoing next = queue.peek();
        if (next == null || next.channel != first.channel || first.length + next.length > EAGER_BYTES) {
            return first;
        }
        ByteArrayOutputStream packed = new ByteArrayOutputStream(Math.min(EAGER_BYTES, first.length * 8));
        packed.write(first.wire, 0, first.length);
        while ((next = queue.peek()) != null && next.channel == first.channel && packed.size() + next.length <= EAGER_BYTES) {
            queue.poll(0, () -> false);
            packed.write(next.wire, 0, next.length);
        }
        return new Outgoing(first.channel, packed.toByteArray(), packed.size());
    }

    private void receiveLoop(int peer, int channel, ParkingQueue<Arrival> queue) {
        byte[] buffer = new byte[EAGER_BYTES];
        try {
            while (!closed) {
                Status s = world.Recv(buffer, 0, buffer.length, MPI.BYTE, peer, channel);
                for (Arrival a : arrivals(peer, channel, buffer, s.Get_count(MPI.BYTE))) {
                    if (!closed) {
                        queue.offer(a, this::isClosed, "closed");
                    }
                }
            }
        } catch (IllegalStateException closing) {
            // closed while handing over
        } catch (Throwable t) {
            if (!closed) {
                broken(peer, t);
                queue.offer(new Arrival(null, new IllegalStateException("receiving from peer " + peer + " on channel " + channel
                        + " failed: " + t, t)), this::isClosed, "closed");
            }
        }
    }

    /** The frames of one message: one or more whole frames, or the header of a large one (whose payload follows). */
    private List<Arrival> arrivals(int peer, int channel, byte[] buffer, int count) throws Exception {
        List<Arrival> out = new ArrayList<>(1);
        int at = 0;
        try {
            while (at < count) {
                FrameCodec.Header h = codec.readHeader(peer, ByteBuffer.wrap(buffer, at, count - at));
                if (h.channel() != channel) {
                    throw new FrameException(peer, "header names channel " + h.channel() + " but arrived on channel " + channel);
                }
                int end = at + FrameCodec.HEADER_BYTES + h.length();
                if (end <= count) {
                    // the receive buffer is reused for the next message: each frame gets its own copy
                    out.add(new Arrival(codec.decode(peer, ByteBuffer.wrap(Arrays.copyOfRange(buffer, at, end))), null));
                    at = end;
                } else if (at == 0) {
                    out.add(arrival(peer, channel, buffer, count, h));
                    return out;
                } else {
                    throw new FrameException(peer, "header announces " + h.length() + " payload bytes but the message holds "
                            + (count - at - FrameCodec.HEADER_BYTES));
                }
            }
        } catch (FrameException e) {
            out.add(new Arrival(null, e));
        }
        return out;
    }

    private Arrival arrival(int peer, int channel, byte[] buffer, int count, FrameCodec.Header h) throws Exception {
        try {
            if (count != FrameCodec.HEADER_BYTES || h.length() + FrameCodec.HEADER_BYTES <= EAGER_BYTES) {
                throw new FrameException(peer, "header announces " + h.length() + " payload bytes but a message of " + count + " arrived");
            }
            byte[] whole = new byte[FrameCodec.HEADER_BYTES + h.length()];
            System.arraycopy(buffer, 0, whole, 0, FrameCodec.HEADER_BYTES);
            Status s = world.Recv(whole, FrameCodec.HEADER_BYTES, h.length(), MPI.BYTE, peer, channel);
            int got = s.Get_count(MPI.BYTE);
            if (got != h.length()) {
                throw new FrameException(peer, "header announces " + h.length() + " payload bytes but " + got + " arrived");
            }
            return new Arrival(codec.decode(peer, ByteBuffer.wrap(whole)), null);
        } catch (FrameException e) {
            return new Arrival(null, e);
        }
    }

    /** Whoever calls this already knows: the link is marked broken without telling the listeners again. */
    @Override
    public void markLost(int peer, String why) {
        checkPeer(peer);
        links.mark(peer, new IllegalStateException("peer " + peer + " lost: " + why));
    }

    private void broken(int peer, Throwable t) {
        if (links.report(peer, t)) {
            LOG.warn("link to peer {} broke: {}", peer, t.toString());
        }
    }

    private void start(String name, Runnable body) {
        Thread t = Thread.ofPlatform().daemon().name(name).unstarted(body);
        threads.add(t);
        t.start();
    }

    private void checkPeer(int peer) {
        LinkFailures.checkPeer(peer, peers, self);
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("transport of peer " + self + " is closed");
        }
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * Flushes queued sends (up to {@code 5 s}), then stops. Receivers blocked in MPJ's {@code Recv}
     * cannot be woken by MPJ; they are daemon threads and end with the JVM. Callers blocked in
     * {@link #receive} wake up with an error.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        inbound.values().forEach(ParkingQueue::wakeAll);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (Thread t : threads) {
            if (t.getName().startsWith("air-mpj-send")) {
                long left = deadline - System.nanoTime();
                try {
                    if (left > 0) {
                        t.join(Math.max(1, left / 1_000_000));
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
    }

    /** Leaves the MPJ world after {@link #close}; skipped when a link broke, where MPJ would hang. */
    public void finalizeWorld() {
        close();
        if (links.anyBroken()) {
            LOG.info("not finalizing MPJ: a link broke");
            return;
        }
        try {
            MPI.Finalize();
        } catch (Exception e) {
            LOG.debug("MPI.Finalize failed", e);
        }
    }
}
