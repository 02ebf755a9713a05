package air.channels.impl;

import air.channels.Frame;
import air.channels.FrameCodec;
import air.channels.Transport;
import air.wire.WireOut;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

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
    private final ConcurrentHashMap<Integer, ParkingQueue<Wire>> inbound = new ConcurrentHashMap<>();
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

    @Override
    public void send(int peer, int channel, WireOut payload) {
        checkOpen();
        if (peer < 0 || peer >= network.length) {
            throw new IllegalArgumentException("peer must be in [0, " + network.length + "), was " + peer);
        }
        sendWire(peer, channel, codec.seal(channel, payload));
    }

    /** Puts raw bytes on the wire as if they were a frame: for tests of the receiver's validation. */
    public void sendWire(int peer, int channel, ByteBuffer wire) {
        InJvmTransport target = network[peer];
        if (target.closed) {
            throw new IllegalStateException("peer " + peer + " is closed");
        }
        target.inboundOf(channel).offer(new Wire(self, wire), this::isClosed, "transport of peer " + self + " is closed");
    }

    @Override
    public Frame receive(int channel, Duration timeout) throws InterruptedException {
        checkOpen();
        Wire wire = inboundOf(channel).poll(timeout.toNanos(), this::isClosed);
        checkOpen();
        return wire == null ? null : codec.decode(wire.sender(), wire.bytes());
    }

    private ParkingQueue<Wire> inboundOf(int channel) {
        return inbound.computeIfAbsent(channel, c -> new ParkingQueue<>(capacity));
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("transport of peer " + self + " is closed");
        }
    }

    @Override
    public void close() {
        closed = true;
        inbound.values().forEach(ParkingQueue::wakeAll);
    }

    boolean isClosed() {
        return closed;
    }
}
