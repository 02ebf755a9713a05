package air.dsl;

import air.channels.Channels;
import air.channels.ForwardingTransport;
import air.channels.InJvmTransports;
import air.channels.Transport;
import air.wire.WireOut;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * One peer of an in-JVM network whose data lane lags: every frame it sends on a data channel (and
 * every delivery mark, {@link Transport#delivered}) is held for a fixed time and then handed on in
 * order, as a congested link or a full socket buffer would; control, heartbeat and replica frames go
 * at once. {@link #crash} loses the peer as a killed process is lost, and with it whatever its lane
 * still held: the frames a dying peer had sent but nobody had received. For tests of what replication
 * may count as safe.
 */
final class LaggingDataTransport extends ForwardingTransport {

    /** A data frame or a delivery mark (payload null), due to be handed on at {@code dueNanos}. */
    private record Held(long dueNanos, int peer, int channel, ByteBuffer payload, CompletableFuture<Void> mark) { }

    private final long lagNanos;
    private final LinkedBlockingQueue<Held> lane = new LinkedBlockingQueue<>();
    private final Thread forwarder;
    private final AtomicLong dropped = new AtomicLong();
    private volatile boolean crashed;
    private volatile boolean closing;

    /** {@code inner}: a transport of an in-JVM network ({@link InJvmTransports}); its data frames lag {@code lag}. */
    LaggingDataTransport(Transport inner, Duration lag) {
        super(inner);
        this.lagNanos = lag.toNanos();
        this.forwarder = Thread.ofPlatform().daemon().name("lagging-lane-" + delegate.self()).start(this::forward);
    }

    private void forward() {
        while (true) {
            Held h;
            try {
                h = lane.poll(50, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return;
            }
            if (h == null) {
                if (closing || crashed) {
                    return;
                }
                continue;
            }
            long wait;
            while (!closing && !crashed && (wait = h.dueNanos() - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait); // the simulated lag itself, not a wait for another thread
            }
            if (crashed) {
                drop(h);
                continue;
            }
            try {
                if (h.mark() == null) {
                    delegate.send(h.peer(), h.channel(), h.payload());
                } else {
                    delegate.delivered(h.peer()).whenComplete((v, e) -> {
                        if (e == null) {
                            h.mark().complete(null);
                        } else {
                            h.mark().completeExceptionally(e);
                        }
                    });
                }
            } catch (IllegalStateException e) {
                // the receiver was lost (its successor gets this from the upstream log), or this peer was
                if (h.mark() != null) {
                    h.mark().completeExceptionally(e);
                }
            }
        }
    }

    private void drop(Held h) {
        if (h.mark() == null) {
            dropped.incrementAndGet();
        } else {
            h.mark().completeExceptionally(new IllegalStateException("peer " + delegate.self() + " was lost with the mark in its lane"));
        }
    }

    /** Loses this peer with every frame its lane still holds; returns how many data frames that was. */
    long crash(String why) {
        crashed = true;
        InJvmTransports.crash(delegate, why);
        Held h;
        while ((h = lane.poll()) != null) {
            drop(h);
        }
        try {
            forwarder.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return dropped.get();
    }

    @Override
    public void send(int peer, int channel, ByteBuffer payload) {
        if (crashed) {
            throw new IllegalStateException("transport of peer " + delegate.self() + " is closed: the peer was lost");
        }
        if (channel < Channels.DATA_BASE) {
            delegate.send(peer, channel, payload);
            return;
        }
        ByteBuffer copy = ByteBuffer.allocate(payload.remaining()).put(payload.duplicate()).flip();
        lane.add(new Held(System.nanoTime() + lagNanos, peer, channel, copy, null));
    }

    /** A WireOut is sealed and sent as bytes, so that it lags as the rest. */
    @Override
    public void send(int peer, int channel, WireOut payload) {
        send(peer, channel, payload.sealForCopy());
    }

    @Override
    public CompletableFuture<Void> delivered(int peer) {
        CompletableFuture<Void> mark = new CompletableFuture<>();
        if (crashed) {
            mark.completeExceptionally(new IllegalStateException("peer " + delegate.self() + " was lost"));
        } else {
            lane.add(new Held(System.nanoTime() + lagNanos, peer, -1, null, mark));
        }
        return mark;
    }

    /** Hands on what the lane holds at once, then closes the peer. */
    @Override
    public void close() {
        closing = true;
        try {
            forwarder.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        delegate.close();
    }
}
