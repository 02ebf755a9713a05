package air.channels.impl;

import air.channels.Frame;
import air.channels.FrameCodec;
import air.channels.Transport;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import org.jctools.queues.atomic.MpscAtomicArrayQueue;

/**
 * One peer of an in-JVM network: frames are encoded, handed over through a bounded JCTools queue
 * per (receiver, channel) and validated on receipt, exactly like frames off a socket. Senders
 * park while the queue is full; a receiver parks until a frame arrives or its timeout passes.
 * One thread receives per channel.
 */
public final class InJvmTransport implements Transport {

    /** An encoded frame in flight and its sender. */
    private record Wire(int sender, ByteBuffer bytes) { }

    private final int self;
    private final InJvmTransport[] network;
    private final FrameCodec codec;
    private final int capacity;
    private final ConcurrentHashMap<Integer, Inbound> inbound = new ConcurrentHashMap<>();
    private volatile boolean closed;

    private InJvmTransport(int self, InJvmTransport[] network, FrameCodec codec, int capacity) {
        this.self = self;
        this.network = network;
        this.codec = codec;
        this.capacity = capacity;
    }

    /** A network of {@code peers} connected transports, rank {@code i} at index {@code i}. */
    public static InJvmTransport[] network(int peers, int queueCapacity, FrameCodec codec) {
        if (peers < 1) {
            throw new IllegalArgumentException("peers must be >= 1, was " + peers);
        }
        if (queueCapacity < 2) {
            throw new IllegalArgumentException("queueCapacity must be >= 2, was " + queueCapacity);
        }
        InJvmTransport[] network = new InJvmTransport[peers];
        for (int i = 0; i < peers; i++) {
            network[i] = new InJvmTransport(i, network, codec, queueCapacity);
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
    public void send(int peer, int channel, ByteBuffer payload) {
        checkOpen();
        if (peer < 0 || peer >= network.length) {
            throw new IllegalArgumentException("peer must be in [0, " + network.length + "), was " + peer);
        }
        sendWire(peer, channel, codec.encode(channel, payload));
    }

    /** Puts raw bytes on the wire as if they were a frame: for tests of the receiver's validation. */
    public void sendWire(int peer, int channel, ByteBuffer wire) {
        InJvmTransport target = network[peer];
        if (target.closed) {
            throw new IllegalStateException("peer " + peer + " is closed");
        }
        target.inboundOf(channel).offer(new Wire(self, wire), this);
    }

    @Override
    public Frame receive(int channel, Duration timeout) throws InterruptedException {
        checkOpen();
        Wire wire = inboundOf(channel).poll(timeout.toNanos(), this);
        return wire == null ? null : codec.decode(wire.sender(), wire.bytes());
    }

    private Inbound inboundOf(int channel) {
        return inbound.computeIfAbsent(channel, c -> new Inbound(capacity));
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("transport of peer " + self + " is closed");
        }
    }

    @Override
    public void close() {
        closed = true;
        inbound.values().forEach(Inbound::wakeAll);
    }

    boolean isClosed() {
        return closed;
    }

    /** The frames waiting for one channel of this peer. */
    private static final class Inbound {
        private final MpscAtomicArrayQueue<Wire> queue;
        private final ConcurrentHashMap<Thread, Boolean> blockedSenders = new ConcurrentHashMap<>();
        private volatile Thread receiver;

        Inbound(int capacity) {
            queue = new MpscAtomicArrayQueue<>(capacity);
        }

        void offer(Wire wire, InJvmTransport sender) {
            while (!queue.offer(wire)) {
                Thread me = Thread.currentThread();
                blockedSenders.put(me, Boolean.TRUE);
                try {
                    if (queue.offer(wire)) {
                        break;
                    }
                    if (sender.isClosed()) {
                        throw new IllegalStateException("transport of peer " + sender.self() + " is closed");
                    }
                    LockSupport.parkNanos(this, 10_000_000L);
                } finally {
                    blockedSenders.remove(me);
                }
            }
            VarHandle.fullFence();
            Thread r = receiver;
            if (r != null) {
                LockSupport.unpark(r);
            }
        }

        Wire poll(long timeoutNanos, InJvmTransport owner) throws InterruptedException {
            Wire wire = queue.poll();
            long deadline = System.nanoTime() + timeoutNanos;
            while (wire == null) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                receiver = Thread.currentThread();
                VarHandle.fullFence();
                wire = queue.poll();
                if (wire == null) {
                    LockSupport.parkNanos(this, left);
                    if (Thread.interrupted()) {
                        receiver = null;
                        throw new InterruptedException();
                    }
                    if (owner.isClosed()) {
                        receiver = null;
                        throw new IllegalStateException("transport of peer " + owner.self() + " is closed");
                    }
                    wire = queue.poll();
                }
                receiver = null;
            }
            VarHandle.fullFence();
            if (!blockedSenders.isEmpty()) {
                blockedSenders.keySet().forEach(LockSupport::unpark);
            }
            return wire;
        }

        void wakeAll() {
            Thread r = receiver;
            if (r != null) {
                LockSupport.unpark(r);
            }
            blockedSenders.keySet().forEach(LockSupport::unpark);
        }
    }
}
