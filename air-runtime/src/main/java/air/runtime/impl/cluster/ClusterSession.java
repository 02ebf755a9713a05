package air.runtime.impl.cluster;

import air.channels.MeshAuth;
import air.channels.Transport;
import air.runtime.api.OwnerToken;
import air.runtime.impl.cluster.Membership.Evidence;
import air.wire.WireIn;
import air.wire.WireOut;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One peer's membership in a cluster: its transport, control plane and heartbeats, the agreed
 * {@link Membership} views, and the job it is running (one at a time). Every blocking wait here
 * also watches for a lost peer or an abort, so no peer waits forever for one that died; a wait
 * without a deadline (the end of a job) says every half minute whom it is still waiting for.
 *
 * <p>A peer that closes its session says LEAVE on the control channel, and its transport says
 * goodbye on its links: the others take its end for a departure, never for a failure, so a peer
 * that finished early and left is not suspected by one still finishing (gathering the results, or
 * in the finish barrier). A peer that left while the job it was part of still ran here, before
 * this peer's part was done, is as lost as a dead one; a wait for a message from a peer that left
 * without sending it fails at once instead of waiting forever.
 */
public final class ClusterSession implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterSession.class);
    private static final long POLL_MS = 50;
    /** How long a missing quorum that rests on broken links waits for the liveness verdict on those peers. */
    private static final long LINK_GRACE_MS = 1_000;
    private static final long STILL_WAITING_MS = 30_000;

    /** What the running job hears from the session: a failure, or that this peer was fenced. */
    public interface JobFailures {
        void failed(String why);

        /** Peer {@code by} stopped the job at savepoint {@code savepoint}, which every peer wrote: this peer stops there too. */
        default void stopped(long savepoint, String by) {
        }

        void fenced(String why);
    }

    /** The running replicated job's handling of a new view that removed peers (it takes their shares over). */
    public interface PeerLossHandler {
        void viewChanged(MembershipView view, List<Integer> removed);
    }

    private final Transport transport;
    private final ControlPlane control;
    private final PeerMonitor monitor;
    private final long startupTimeoutMs;
    private final AtomicLong sequence = new AtomicLong();
    private volatile long currentJob = -1;
    private volatile JobFailures jobFailure;
    private volatile String lost;
    private volatile String abortedBy;
    private final PeerLiveness liveness;
    private final String livenessBind;
    private final String advertise;
    private final MeshAuth auth;
    /** Peers removed by an installed view: the others go on without them. */
    private final AtomicIntegerArray gone; // 1: removed; read on every remote send under replication
    /** Peers that closed their session (said LEAVE): whatever they sent before is dispatched. */
    private final AtomicIntegerArray left;
    /** The job whose finish barrier this peer entered (its part is done); -1 before any. */
    private volatile long finishingJob = -1;
    /** The running job's taker of lost peers when it is replicated; null: a lost peer fails the job. */
    private volatile PeerLossHandler peerLossHandler;
    /** The running job survives a lost peer (replication): views that come before its handler wait for it. */
    private volatile boolean jobSurvivesLoss;
    /** Guards handing views to the handler against installing it: none is lost or handed twice. */
    private final ReentrantLock lossLock = new ReentrantLock();
    private final List<Runnable> pendingLosses = new ArrayList<>();
    private final Membership membership;
    /** One thread that runs the membership's sends and listener calls in order (see {@link Membership}). */
    private final ExecutorService membershipEffects = Executors.newSingleThreadExecutor(
            r -> Thread.ofPlatform().daemon().name("air-membership").unstarted(r));
    /** When this world formed, by rank 0's clock: orders the owners of a sink's output across restarts. */
    private long incarnation = System.currentTimeMillis();

    /**
     * {@code livenessBind}: the interface the liveness connections listen on ({@code AIR_BIND}; null:
     * loopback); {@code advertise}: the address the other peers connect to ({@code Advertise.host}).
     */
    public ClusterSession(Transport transport, long heartbeatMs, long failureTimeoutMs, long startupTimeoutMs, String livenessBind,
                          String advertise, MeshAuth auth) {
        this.advertise = advertise;
        this.auth = auth;
        this.transport = transport;
        this.livenessBind = livenessBind;
        this.startupTimeoutMs = startupTimeoutMs;
        this.control = new ControlPlane(transport, this::onAbort, e -> fail("garbage on the control channel: " + e.getMessage()));
        this.gone = new AtomicIntegerArray(transport.peers());
        this.left = new AtomicIntegerArray(transport.peers());
        this.membership = new Membership(transport.self(), transport.peers(), new ControlMessenger(), new MembershipEvents(),
                (ms, check) -> Thread.ofPlatform().daemon().name("air-membership-recheck").start(() -> {
                    LockSupport.parkNanos(ms * 1_000_000L); // a timer: the grace before a missing quorum fences this peer
                    check.run();
                }), LINK_GRACE_MS, membershipEffects);
        this.monitor = new PeerMonitor(transport, heartbeatMs, failureTimeoutMs, this::onSuspected);
        monitor.onPaused(membership::fenceSelf);
        control.onMembership(this::onMembershipMessage);
        control.onLeave(this::onLeave);
        this.liveness = startLiveness();
    }

    /** Exchanges liveness addresses over the control channel and connects the mesh. */
    private PeerLiveness startLiveness() {
        if (peers() == 1) {
            return null;
        }
        try {
            String bind = livenessBind;
            PeerLiveness l = new PeerLiveness(self(), bind == null ? InetAddress.getLoopbackAddress()
                    : InetAddress.getByName(bind), advertise, auth, monitor::processGone);
            control.sendToAll(ControlPlane.Kind.HELLO, 0, l.address(), ByteBuffer.allocate(8).putLong(incarnation).array());
            ControlPlane.Message[] hello = fromEveryPeer(ControlPlane.Kind.HELLO, 0, startupTimeoutMs, "meet");
            if (self() != 0) {
                incarnation = ByteBuffer.wrap(hello[0].bytes()).getLong(); // rank 0's clock names this world
            }
            String[] addresses = new String[peers()];
            for (int p = 0; p < peers(); p++) {
                addresses[p] = p == self() ? l.address() : hello[p].text();
            }
            control.forget(0);
            try {
                l.connect(addresses, startupTimeoutMs);
            } catch (IOException | RuntimeException e) {
                l.close(); // no watcher of a half-made mesh may report a peer gone later
                throw e;
            }
            return l;
        } catch (IOException e) {
            throw new UncheckedIOException("peer " + self() + " could not connect the liveness mesh", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while meeting the other peers", e);
        }
    }

    public Transport transport() {
        return transport;
    }

    public int self() {
        return transport.self();
    }

    public int peers() {
        return transport.peers();
    }

    /** The failure detector suspects peers: the membership decides; a job that is not replicated fails at once. */
    private void onSuspected(Map<Integer, String> peers, Evidence evidence) {
        membership.suspect(peers, evidence);
        if (peerLossHandler == null && !jobSurvivesLoss && membership.fencedBecause() == null) {
            Map.Entry<Integer, String> first = peers.entrySet().iterator().next();
            lostPeer("peer " + first.getKey() + " lost: " + first.getValue());
        }
    }

    private void lostPeer(String why) {
        if (lost == null) {
            lost = why;
        }
        fail(why);
    }

    /**
     * A peer closed its session. After this peer's part of the job was done (in or past the finish
     * barrier, which the leaver passed, so every part is done) or between jobs, it simply left: it is
     * never suspected for the end of its links or its silence. While this peer's part still runs,
     * the leaver's part may still be owed: it is lost as a dead process is.
     */
    private void onLeave(ControlPlane.Message m) {
        int p = m.peer();
        if (isGone(p)) {
            return; // removed already: the others went on without it
        }
        left.set(p, 1);
        long job = currentJob;
        if (job != -1 && finishingJob != job) {
            monitor.processGone(p, "it left the cluster (closed its session) while job " + job + " still ran on peer " + self());
        } else {
            monitor.left(p);
            LOG.debug("peer {}: peer {} left the cluster", self(), p);
        }
    }

    /** Whether {@code peer} closed its session (said LEAVE). */
    public boolean hasLeft(int peer) {
        return left.get(peer) == 1;
    }

    private void onMembershipMessage(ControlPlane.Message m) {
        if (m.kind() == ControlPlane.Kind.VIEW) {
            membership.onView(m.peer(), MembershipView.readFrom(new WireIn(ByteBuffer.wrap(m.bytes()), m.peer()), peers()));
        } else {
            WireIn in = new WireIn(ByteBuffer.wrap(m.bytes()), m.peer());
            int suspect = in.getInt();
            if (suspect < 0 || suspect >= peers()) {
                throw in.malformed("a suspicion of rank " + suspect + " in a world of " + peers());
            }
            membership.onSuspicion(m.peer(), m.job(), suspect, m.text());
        }
    }

    /** Views and suspicions travel on the control channel; a send to a peer that is gone is dropped. */
    private final class ControlMessenger implements Membership.Messenger {
        @Override
        public void sendView(int to, MembershipView view) {
            WireOut out = new WireOut(32 + 4 * view.size());
            view.writeTo(out);
            sendQuietly(to, ControlPlane.Kind.VIEW, view.epoch(), "", out);
        }

        @Override
        public void sendSuspicion(int to, long epoch, int suspect, String why) {
            sendQuietly(to, ControlPlane.Kind.SUSPECT, epoch, why, new WireOut(8).putInt(suspect));
        }

        private void sendQuietly(int to, ControlPlane.Kind kind, long epoch, String text, WireOut bytes) {
            byte[] raw = bytes.toBytes();
            try {
                control.send(to, kind, epoch, text, raw);
            } catch (RuntimeException e) {
                LOG.debug("{} to peer {} not sent: {}", kind, to, e.getMessage());
            }
        }
    }

    /** What an installed view or a fence means for this session and its job. */
    private final class MembershipEvents implements Membership.Listener {
        @Override
        public void installed(MembershipView view, List<Integer> removed, Map<Integer, String> why) {
            for (int p : removed) {
                gone.set(p, 1);
                monitor.forget(p, "removed by " + view);
            }
            lossLock.lock();
            try {
                PeerLossHandler handler = peerLossHandler;
                if (handler != null) {
                    handler.viewChanged(view, removed);
                    return;
                }
                if (jobSurvivesLoss) {
                    pendingLosses.add(() -> peerLossHandler.viewChanged(view, removed)); // its takeover is not set up yet
                    return;
                }
            } finally {
                lossLock.unlock();
            }
            if (!removed.isEmpty()) {
                lostPeer("peer " + removed.get(0) + " lost: " + why.get(removed.get(0)));
            }
        }

        @Override
        public void fenced(String why) {
            if (lost == null) {
                lost = why;
            }
            JobFailures f = jobFailure;
            if (f != null) {
                f.fenced(why);
            }
        }
    }

    /** The membership view installed here. */
    public MembershipView view() {
        return membership.view();
    }

    /** Why this peer was fenced (declared lost by the others, or without a quorum), or null. */
    public String fencedBecause() {
        return membership.fencedBecause();
    }

    /**
     * Why this peer is fenced, checking first whether it was just paused past the failure timeout
     * (a job that failed right after a pause failed because of it); null while it is a member.
     */
    public String fencedAfterPause() {
        monitor.pausedPastTimeout();
        return membership.fencedBecause();
    }

    /** Who owns output this peer opens now: this world (its start by rank 0's clock) and the view installed here. */
    public OwnerToken owner() {
        return new OwnerToken(incarnation, membership.view().epoch());
    }

    /** Whether {@code peer} was lost while a replicated job ran (the others carry on without it). */
    public boolean isGone(int peer) {
        return gone.get(peer) == 1;
    }

    /**
     * While the current job runs, a lost peer goes to {@code handler} instead of failing the job
     * (replication takes over its share); null restores the default.
     */
    public void onPeerLoss(PeerLossHandler handler) {
        lossLock.lock();
        try {
            peerLossHandler = handler;
            if (handler != null) {
                pendingLosses.forEach(Runnable::run); // views installed between the job's start and now
            }
            pendingLosses.clear();
        } finally {
            lossLock.unlock();
        }
    }



    private void onAbort(ControlPlane.Message m) {
        if (m.kind() == ControlPlane.Kind.STOP) {
            JobFailures f = jobFailure;
            if (m.job() == currentJob && f != null) {
                f.stopped(Long.parseLong(m.text()), "peer " + m.peer());
            }
            return;
        }
        if (isGone(m.peer())) {
            LOG.warn("peer {}: ignoring an abort from peer {}, which {} removed: {}", self(), m.peer(), membership.view(), m.text());
            return;
        }
        if (m.job() == currentJob) {
            abortedBy = "peer " + m.peer() + " failed: " + m.text();
            fail(abortedBy);
        }
    }

    private void fail(String why) {
        JobFailures f = jobFailure;
        if (f != null) {
            f.failed(why);
        }
    }

    /**
     * Starts a job: every peer must present the same plan fingerprint. Returns the job's sequence
     * number. {@code survivesPeerLoss}: the job takes lost peers' shares over (replication) — a loss
     * before it set its handler ({@link #onPeerLoss}) waits for it instead of failing the job.
     */
    public long beginJob(String fingerprint, JobFailures onFailure, boolean survivesPeerLoss) throws InterruptedException {
        checkUsable();
        if (currentJob != -1) {
            throw new IllegalStateException("peer " + self() + " is already running a cluster job; run them one after another");
        }
        long job = sequence.incrementAndGet();
        abortedBy = null;
        currentJob = job;
        jobSurvivesLoss = survivesPeerLoss;
        jobFailure = onFailure;
        List<String> problems = new ArrayList<>();
        try {
            control.sendToAll(ControlPlane.Kind.PLAN, job, fingerprint, new byte[0]);
            ControlPlane.Message[] plans = fromEveryPeer(ControlPlane.Kind.PLAN, job, startupTimeoutMs,
                    "agree on the plan");
            for (ControlPlane.Message m : plans) {
                if (m != null && !m.text().equals(fingerprint)) {
                    problems.add("peer " + m.peer() + " built a different pipeline than peer " + self() + ":\n"
                            + PlanFingerprint.difference(fingerprint, self(), m.text(), m.peer()));
                }
            }
        } catch (RuntimeException | InterruptedException e) {
            endJob(job);
            throw e;
        }
        if (!problems.isEmpty()) {
            endJob(job);
            throw new IllegalStateException("plan mismatch between peers (every peer must run the same program with the same "
                    + "settings):\n" + String.join("\n", problems));
        }
        return job;
    }

    /**
     * One message of this kind and operation from every other peer, indexed by rank (null at
     * this peer's own); a peer's repeated message does not count twice.
     */
    private ControlPlane.Message[] fromEveryPeer(ControlPlane.Kind kind, long op, long timeoutMs, String what)
            throws InterruptedException {
        return fromEveryPeer(kind, op, new Patience(timeoutMs, STILL_WAITING_MS), what);
    }

    /**
     * How long a wait for the other peers may last ({@code timeoutMs}, 0: as long as they are
     * members) and how often it logs which peers it still waits for ({@code noteEveryMs}): a peer
     * that is alive but stuck keeps heartbeating, so only a deadline or a note names it.
     */
    public record Patience(long timeoutMs, long noteEveryMs) {

        public Patience {
            if (timeoutMs < 0 || noteEveryMs < 1) {
                throw new IllegalArgumentException("timeoutMs must be >= 0 and noteEveryMs >= 1, were " + timeoutMs + ", " + noteEveryMs);
            }
        }

        /** No deadline, a note every 30 s. */
        public static final Patience UNBOUNDED = new Patience(0, STILL_WAITING_MS);

        long deadline(long startMs) {
            return timeoutMs == 0 || startMs > Long.MAX_VALUE - timeoutMs ? Long.MAX_VALUE : startMs + timeoutMs;
        }
    }

    private ControlPlane.Message[] fromEveryPeer(ControlPlane.Kind kind, long op, Patience patience, String what)
            throws InterruptedException {
        ControlPlane.Message[] got = new ControlPlane.Message[peers()];
        boolean[] heard = new boolean[peers()];
        heard[self()] = true;
        long deadline = patience.deadline(System.currentTimeMillis());
        while (missingFrom(heard)) {
            ControlPlane.Message m = awaitMessage(kind, op, deadline, patience, heard, what);
            if (m != null && !heard[m.peer()]) {
                heard[m.peer()] = true;
                got[m.peer()] = m;
            }
        }
        return got;
    }

    /** Whether a live peer has not been heard yet (a peer lost under replication is not waited for). */
    private boolean missingFrom(boolean[] heard) {
        for (int p = 0; p < heard.length; p++) {
            if (!heard[p] && !isGone(p)) {
                return true;
            }
        }
        return false;
    }

    /** The next such message, or null when a peer was lost under replication meanwhile (the caller re-checks). */
    private ControlPlane.Message awaitMessage(ControlPlane.Kind kind, long job, long deadline, Patience patience, boolean[] heard,
                                              String what) throws InterruptedException {
        long nextNote = System.currentTimeMillis() + patience.noteEveryMs();
        while (true) {
            checkUsable();
            if (abortedBy != null) {
                throw new IllegalStateException(abortedBy);
            }
            ControlPlane.Message m = control.next(kind, job, POLL_MS);
            if (m != null || !missingFrom(heard)) {
                return m;
            }
            List<Integer> leavers = missing(heard).stream().filter(this::hasLeft).toList();
            if (!leavers.isEmpty()) {
                m = control.next(kind, job, 0); // a peer's messages are dispatched before its LEAVE: one it sent is queued by now
                if (m != null) {
                    return m;
                }
                throw new IllegalStateException("peer " + self() + " cannot " + what + ": peer(s) " + leavers
                        + " left the cluster (closed their session) without taking part");
            }
            long now = System.currentTimeMillis();
            if (now > nextNote) {
                nextNote = now + patience.noteEveryMs();
                LOG.warn("peer {} still waits to {} for peer(s) {} ({}; each is a member still sending heartbeats)", self(), what,
                        missing(heard), membership.view());
            }
            if (now > deadline) {
                List<Integer> missing = missing(heard);
                throw new IllegalStateException("peer " + self() + " waited " + patience.timeoutMs() + " ms to " + what
                        + " but peer(s) " + missing + " never answered (" + membership.view() + "; each is a member still sending"
                        + " heartbeats: alive but stuck, or far behind)");
            }
        }
    }

    private List<Integer> missing(boolean[] heard) {
        List<Integer> missing = new ArrayList<>();
        for (int p = 0; p < heard.length; p++) {
            if (!heard[p] && !isGone(p)) {
                missing.add(p);
            }
        }
        return missing;
    }

    /** After the local part of a job finished: waits until every peer's part has, or one fails, or {@code patience} runs out. */
    public void finishBarrier(long job, Patience patience) throws InterruptedException {
        if (job == currentJob) {
            finishingJob = job; // before DONE goes out: a peer that hears every DONE, and leaves, finds this one finishing
        }
        control.sendToAll(ControlPlane.Kind.DONE, job, "", new byte[0], this::isGone);
        fromEveryPeer(ControlPlane.Kind.DONE, job, patience, "finish");
    }

    /**
     * The job stopped at savepoint {@code savepoint} on this peer: tells every peer (one still
     * running stops there too) and returns once every peer has said the same, so that no peer
     * leaves while another still runs and would take its leaving for a failure.
     */
    public void stopBarrier(long job, long savepoint, Patience patience) throws InterruptedException {
        if (job == currentJob) {
            finishingJob = job;
        }
        control.sendToAll(ControlPlane.Kind.STOP, job, Long.toString(savepoint), new byte[0], this::isGone);
        fromEveryPeer(ControlPlane.Kind.STOP, job, patience, "stop at savepoint " + savepoint);
    }

    /** Tells every peer this peer's part of the job failed (best effort: some may be gone). */
    public void abortAll(long job, String reason) {
        try {
            control.sendToAll(ControlPlane.Kind.ABORT, job, "peer " + self() + ": " + reason, new byte[0], p -> isGone(p) || hasLeft(p));
        } catch (RuntimeException e) {
            LOG.debug("could not tell every peer about the failure", e);
        }
    }

    public void endJob(long job) {
        if (currentJob == job) {
            jobFailure = null;
            currentJob = -1;
            jobSurvivesLoss = false;
        }
        control.forget(job);
    }

    /** Returns once every peer has called it (as often as this one), or fails once {@code patience} runs out. */
    public void barrier(Patience patience) throws InterruptedException {
        checkUsable();
        long op = sequence.incrementAndGet();
        finishBarrier(op, patience);
        control.forget(op);
    }

    /**
     * The gathering peer (the lowest rank still live; rank 0 unless it was lost under replication)
     * gets every peer's bytes in rank order, null for a peer lost under replication (whose share
     * another peer took over); the others get an empty list.
     */
    public List<byte[]> gather(byte[] mine, Patience patience) throws InterruptedException {
        long op = sequence.incrementAndGet();
        int root = gatherRoot();
        if (self() != root) {
            control.send(root, ControlPlane.Kind.GATHER, op, "", mine);
            return List.of();
        }
        ControlPlane.Message[] parts = fromEveryPeer(ControlPlane.Kind.GATHER, op, patience, "gather results");
        control.forget(op);
        List<byte[]> all = new ArrayList<>();
        for (int p = 0; p < peers(); p++) {
            all.add(p == root ? mine : parts[p] == null ? null : parts[p].bytes());
        }
        return all;
    }

    /** The lowest rank not lost. */
    public int gatherRoot() {
        for (int p = 0; p < peers(); p++) {
            if (!isGone(p)) {
                return p;
            }
        }
        return self();
    }

    /** Tells every member still here that this peer leaves (best effort: a peer that is gone cannot hear it). */
    private void sayLeaving() {
        for (int p = 0; p < peers(); p++) {
            if (p != self() && !isGone(p) && !hasLeft(p)) {
                try {
                    control.send(p, ControlPlane.Kind.LEAVE, 0, "", new byte[0]);
                } catch (RuntimeException e) {
                    LOG.debug("LEAVE to peer {} not sent: {}", p, e.getMessage());
                }
            }
        }
    }

    private void checkUsable() {
        String fence = membership.fencedBecause();
        if (fence != null) {
            throw new IllegalStateException(fence);
        }
        if (lost != null) {
            throw new IllegalStateException("the cluster is broken: " + lost);
        }
    }

    /** Leaves the cluster: LEAVE to every member, after all this peer sent; then the goodbyes of liveness, heartbeats and transport. */
    @Override
    public void close() {
        sayLeaving();
        if (liveness != null) {
            liveness.close();
        }
        monitor.close();
        control.close();
        membershipEffects.shutdownNow(); // after the monitor: nothing decides a view any more
        transport.close();
    }
}
