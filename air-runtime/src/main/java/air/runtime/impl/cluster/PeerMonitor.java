package air.runtime.impl.cluster;

import air.channels.Channels;
import air.channels.Frame;
import air.channels.Transport;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Heartbeats on their own channel: every peer sends one to every other each interval; a peer not
 * heard from for the failure timeout is declared lost (once), and so is one whose link broke. A
 * peer that leaves says goodbye first, so that its silence is not taken for death. Both loops run
 * on platform threads: on virtual threads, tasklets that keep every carrier busy delayed
 * heartbeats by seconds (measured: a healthy peer declared lost after 6.4 s of silence).
 */
public final class PeerMonitor implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PeerMonitor.class);
    private static final byte BEAT = 1, BYE = 2;

    private final Transport transport;
    private final long intervalNanos;
    private final long timeoutNanos;
    private final long[] lastHeard;
    private final boolean[] gone;
    private final BiConsumer<Integer, String> onLost;
    private final Thread sender;
    private final Thread receiver;
    private static final long LINK_ATTRIBUTION_NANOS = 1_000_000_000L;
    private volatile boolean closed;
    private volatile boolean anyLost;

    public PeerMonitor(Transport transport, long intervalMs, long timeoutMs, BiConsumer<Integer, String> onLost) {
        if (intervalMs < 1 || timeoutMs <= intervalMs) {
            throw new IllegalArgumentException("heartbeat interval must be >= 1 ms and below the failure timeout, were "
                    + intervalMs + " and " + timeoutMs + " ms");
        }
        this.transport = transport;
        this.intervalNanos = intervalMs * 1_000_000L;
        this.timeoutNanos = timeoutMs * 1_000_000L;
        this.lastHeard = new long[transport.peers()];
        this.gone = new boolean[transport.peers()];
        this.onLost = onLost;
        long now = System.nanoTime();
        Arrays.fill(lastHeard, now);
        transport.onLinkFailure(this::linkBroke);
        this.receiver = Thread.ofPlatform().daemon().name("air-heartbeat-in-" + transport.self()).start(this::receiveLoop);
        this.sender = Thread.ofPlatform().daemon().name("air-heartbeat-out-" + transport.self()).start(this::sendLoop);
    }

    private void sendLoop() {
        while (!closed) {
            beat(BEAT);
            LockSupport.parkNanos(intervalNanos); // a timer: nothing waits on this thread
        }
    }

    private void beat(byte kind) {
        for (int p = 0; p < transport.peers(); p++) {
            if (p != transport.self() && !isGone(p)) {
                try {
                    transport.send(p, Channels.HEARTBEAT, ByteBuffer.wrap(new byte[] {kind}));
                } catch (RuntimeException e) {
                    lost(p, "a heartbeat could not be sent (" + e.getMessage() + ")");
                }
            }
        }
    }

    private void receiveLoop() {
        while (!closed) {
            Frame f;
            try {
                f = transport.receive(Channels.HEARTBEAT, Duration.ofNanos(intervalNanos));
            } catch (InterruptedException | IllegalStateException e) {
                return;
            } catch (RuntimeException e) {
                LOG.warn("ignoring a malformed heartbeat: {}", e.getMessage());
                continue;
            }
            long now = System.nanoTime();
            if (f != null) {
                lastHeard[f.peer()] = now;
                if (f.payload().remaining() > 0 && f.payload().get(0) == BYE) {
                    synchronized (gone) {
                        gone[f.peer()] = true;
                    }
                }
            }
            for (int p = 0; p < lastHeard.length; p++) {
                if (p != transport.self() && !isGone(p) && now - lastHeard[p] > timeoutNanos) {
                    lost(p, String.format("no heartbeat for %.1f s", (now - lastHeard[p]) / 1e9));
                }
            }
        }
    }

    /**
     * A link broke. Over MPJ niodev, which breaks every link when one rank dies, that does not say
     * which peer died: give the liveness connections a moment to name it, then blame this link's peer.
     */
    private void linkBroke(int peer, Throwable t) {
        if (transport.survivesPeerLoss()) {
            lost(peer, "its link broke (" + t + ")"); // a transport whose links break one by one names the peer exactly
            return;
        }
        Thread.ofPlatform().daemon().name("air-link-broke-" + peer).start(() -> {
            LockSupport.parkNanos(LINK_ATTRIBUTION_NANOS); // a timer: only decides whom to blame
            if (!anyLost) {
                lost(peer, "its link broke (" + t + ")");
            }
        });
    }

    /** The liveness connection to {@code peer} ended without a goodbye. */
    public void processGone(int peer, String why) {
        lost(peer, why);
    }

    private boolean isGone(int peer) {
        synchronized (gone) {
            return gone[peer];
        }
    }

    private void lost(int peer, String why) {
        synchronized (gone) {
            if (gone[peer] || closed) {
                return;
            }
            gone[peer] = true;
            anyLost = true;
        }
        LOG.error("peer {} lost: {}", peer, why);
        transport.markLost(peer, why);
        onLost.accept(peer, why);
    }

    /** Says goodbye to every peer and stops. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        beat(BYE);
        closed = true;
        LockSupport.unpark(sender);
        try {
            sender.join(2_000);
            receiver.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
