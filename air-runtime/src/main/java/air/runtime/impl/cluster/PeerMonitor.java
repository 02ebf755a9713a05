package air.runtime.impl.cluster;

import air.channels.Channels;
import air.channels.Frame;
import air.channels.Transport;
import air.runtime.impl.cluster.Membership.Evidence;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Heartbeats on their own channel: every peer sends one to every other each interval; a peer not
 * heard from for the failure timeout is suspected (once), and so is one whose link broke; the
 * suspicion goes to the {@link Membership}, which decides. Peers overdue in one pass are suspected
 * together, so that a peer that resumes after a pause sees at once that it lost everyone. A peer
 * that leaves says goodbye first, so that its silence is not taken for death; so does its
 * transport where it can ({@link Transport#onDeparture}), and its session on the control channel
 * ({@link #left}): a peer heard leaving is never suspected, whichever goodbye comes first. Both loops run
 * on platform threads: on virtual threads, tasklets that keep every carrier busy delayed
 * heartbeats by seconds (measured: a healthy peer declared lost after 6.4 s of silence).
 */
public final class PeerMonitor implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PeerMonitor.class);
    static final byte BEAT = 1, BYE = 2; // package-private: a test holds a goodbye back

    private final Transport transport;
    private final long intervalNanos;
    private final long timeoutNanos;
    private final long[] lastHeard;
    private final boolean[] gone;
    private final Suspicions onLost;
    private final Thread sender;
    private final Thread receiver;
    private static final long LINK_ATTRIBUTION_NANOS = 1_000_000_000L;
    private volatile boolean closed;
    private volatile boolean anyLost;
    /** When the sender last ran a round: a gap past the failure timeout means this process did not run (a pause). */
    private volatile long lastRound = System.nanoTime();
    private volatile Consumer<String> onPaused = why -> { };

    /** Hears suspicions: the peers (with why) and what the suspicion rests on. */
    public interface Suspicions {
        void suspect(Map<Integer, String> peers, Evidence evidence);
    }

    public PeerMonitor(Transport transport, long intervalMs, long timeoutMs, Suspicions onLost) {
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
        transport.onDeparture(this::left);
        this.receiver = Thread.ofPlatform().daemon().name("air-heartbeat-in-" + transport.self()).start(this::receiveLoop);
        this.sender = Thread.ofPlatform().daemon().name("air-heartbeat-out-" + transport.self()).start(this::sendLoop);
    }

    private void sendLoop() {
        while (!closed) {
            try {
                pausedPastTimeout();
                lastRound = System.nanoTime();
                beat(BEAT);
            } catch (RuntimeException e) {
                LOG.warn("peer {}: a heartbeat round failed: {}", transport.self(), e.toString()); // the next round tries again
            }
            LockSupport.parkNanos(intervalNanos); // a timer: nothing waits on this thread
        }
    }

    /** Hears that this peer did not run for longer than the failure timeout (called once it runs again). */
    public void onPaused(Consumer<String> listener) {
        onPaused = listener;
    }

    /**
     * Whether this process did not run for longer than the failure timeout (SIGSTOP, a long GC
     * pause, a VM stall): its heartbeat sender missed its rounds, so the others have declared it
     * lost by now. Tells the listener when so. Checked by the sender each round and by a job that
     * ends in a failure, whichever runs first after the pause.
     */
    public boolean pausedPastTimeout() {
        long gap = System.nanoTime() - lastRound;
        if (closed || gap <= timeoutNanos) {
            return false;
        }
        onPaused.accept(String.format("this peer did not run for %.1f s (paused: SIGSTOP, a long GC pause or a VM stall), longer "
                + "than the %.1f s failure timeout: the others have declared it lost", gap / 1e9, timeoutNanos / 1e9));
        return true;
    }

    private void beat(byte kind) {
        for (int p = 0; p < transport.peers(); p++) {
            if (p != transport.self() && !isGone(p)) {
                try {
                    transport.send(p, Channels.HEARTBEAT, ByteBuffer.wrap(new byte[] {kind}));
                } catch (RuntimeException e) {
                    lost(Map.of(p, "a heartbeat could not be sent (" + e.getMessage() + ")"), Evidence.LINK_BROKEN);
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
            Map<Integer, String> overdue = null; // made only when a peer is overdue: this loop runs per heartbeat
            for (int p = 0; p < lastHeard.length; p++) {
                if (p != transport.self() && !isGone(p) && now - lastHeard[p] > timeoutNanos) {
                    if (overdue == null) {
                        overdue = new TreeMap<>();
                    }
                    overdue.put(p, String.format("no heartbeat for %.1f s", (now - lastHeard[p]) / 1e9));
                }
            }
            if (overdue != null) {
                lost(overdue, Evidence.SILENT);
            }
        }
    }

    /**
     * A link broke. Over MPJ niodev, which breaks every link when one rank dies, that does not say
     * which peer died: give the liveness connections a moment to name it, then blame this link's peer.
     */
    private void linkBroke(int peer, Throwable t) {
        if (transport.survivesPeerLoss()) {
            lost(Map.of(peer, "its link broke (" + t + ")"), Evidence.LINK_BROKEN); // a transport whose links break one by one names the peer exactly
            return;
        }
        Thread.ofPlatform().daemon().name("air-link-broke-" + peer).start(() -> {
            LockSupport.parkNanos(LINK_ATTRIBUTION_NANOS); // a timer: only decides whom to blame
            if (!anyLost) {
                lost(Map.of(peer, "its link broke (" + t + ")"), Evidence.LINK_BROKEN);
            }
        });
    }

    /** The liveness connection to {@code peer} ended without a goodbye: its process is gone. */
    public void processGone(int peer, String why) {
        lost(Map.of(peer, why), Evidence.PROCESS_GONE);
    }

    /**
     * {@code peer} left: it finished and closed normally, saying so. No more heartbeats to or from
     * it, and neither its silence nor the end of its links is a suspicion.
     */
    public void left(int peer) {
        boolean first;
        synchronized (gone) {
            first = !gone[peer];
            gone[peer] = true;
        }
        if (first) {
            LOG.debug("peer {}: peer {} left", transport.self(), peer);
        }
    }

    /** {@code peer} was removed from the membership: no more heartbeats to or from it, its link closed. */
    public void forget(int peer, String why) {
        boolean first;
        synchronized (gone) {
            first = !gone[peer];
            gone[peer] = true;
        }
        if (first) {
            transport.markLost(peer, why);
        }
    }

    private boolean isGone(int peer) {
        synchronized (gone) {
            return gone[peer];
        }
    }

    /**
     * Suspects these peers: the first suspicion of each is logged and cuts its link; a process
     * known to be gone is passed on even when its link broke first (that makes it certain).
     */
    private void lost(Map<Integer, String> peers, Evidence evidence) {
        Map<Integer, String> news = new TreeMap<>();
        synchronized (gone) {
            if (closed) {
                return;
            }
            for (Map.Entry<Integer, String> e : peers.entrySet()) {
                if (!gone[e.getKey()] || evidence == Evidence.PROCESS_GONE) {
                    news.put(e.getKey(), e.getValue());
                }
                if (!gone[e.getKey()]) {
                    gone[e.getKey()] = true;
                    anyLost = true;
                    LOG.error("peer {} suspected: {}", e.getKey(), e.getValue());
                }
            }
        }
        if (news.isEmpty()) {
            return;
        }
        news.forEach((p, why) -> transport.markLost(p, why));
        onLost.suspect(news, evidence);
    }

    /** Says goodbye to every peer and stops. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true; // first: a goodbye that cannot be sent is no loss to report, and the loops end whatever happens below
        try {
            beat(BYE);
        } finally {
            LockSupport.unpark(sender);
        }
        try {
            sender.join(2_000);
            receiver.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
