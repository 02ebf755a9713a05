package air.runtime.impl.cluster;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Agreed membership: a lost peer is decided once for the world, as a numbered
 * {@link MembershipView}, and survivors act only on views. Each peer's failure detector only
 * <em>suspects</em>; the lowest-ranked member of the current view that this peer does not suspect
 * is the coordinator. The coordinator turns every suspicion it holds or is told of into the next
 * view and sends it to every rank; the others report their suspicions to it. A view is installed
 * only if it is newer than the one held, in epoch order, one at a time.
 *
 * <p><b>Fencing.</b> A peer stops for good (it is <em>fenced</em>) when it learns it was declared
 * lost — a newer view without it — or when the members it can still reach are not a quorum of the
 * current view: more than half of its members not known to be dead, or exactly half including
 * the lowest of them. "Known to be dead" is a peer whose operating system closed its liveness
 * connection (its process is gone, it cannot be on the far side of a partition); any other silence
 * is only a suspicion. So of two sides of a partition at most one goes on, and a paused peer that
 * resumes after the others moved on finds itself alone and stops instead of writing beside its
 * successor.
 *
 * <p>This is not consensus: it assumes a failure detector that is roughly symmetric. Under an
 * asymmetric partition of the coordinator two views of one number can exist; each removes the
 * other's coordinator, which both then fence, and the survivors converge on the next view.
 */
public final class Membership {

    private static final Logger LOG = LoggerFactory.getLogger(Membership.class);

    /** Where view and suspicion messages go: the control plane, or a test's router. Sends are best effort. */
    public interface Messenger {
        void sendView(int to, MembershipView view);

        void sendSuspicion(int to, long epoch, int suspect, String why);
    }

    /** Runs a re-check later (a timer thread; a test runs it by hand). */
    public interface Timer {
        void after(long millis, Runnable check);
    }

    /** What a suspicion rests on. */
    public enum Evidence {
        /** No heartbeat within the failure timeout, or a member reported it: the peer may be alive behind a partition or a pause. */
        SILENT,
        /**
         * A link to it broke: its process may have died (its liveness connection says so a moment later) or the link was cut
         * (a peer that removed this one closes its links).
         */
        LINK_BROKEN,
        /** Its operating system closed its liveness connection without a goodbye: its process is gone. */
        PROCESS_GONE
    }

    /** Hears the views this peer installs and the moment it is fenced; called in order, on the membership's effects executor. */
    public interface Listener {
        /** {@code view} is installed; {@code removed} (rank order) were members of the previous one, with why each was removed. */
        void installed(MembershipView view, List<Integer> removed, Map<Integer, String> why);

        /** This peer must stop at once: it was declared lost, or cannot reach a quorum. */
        void fenced(String why);
    }

    private final int self;
    private final Messenger messenger;
    private final Listener listener;
    private final Timer timer;
    private final long graceMs;
    /** Runs sends and listener calls, in the order decided, off the detector's and control reader's threads. */
    private final Executor effects;
    private final ReentrantLock lock = new ReentrantLock();
    private MembershipView view;
    /** Members suspected here or reported to this peer, with why. */
    private final Map<Integer, String> suspected = new TreeMap<>();
    /** Suspected members whose process is known to be gone. */
    private final TreeSet<Integer> dead = new TreeSet<>();
    /** Members suspected only because a link broke: a missing quorum waits {@code graceMs} for their liveness verdict. */
    private final TreeSet<Integer> linkOnly = new TreeSet<>();
    private boolean recheckPending;
    /** Suspicions reported to a coordinator, by suspect: a new coordinator hears them again. */
    private final Map<Integer, Integer> reportedTo = new HashMap<>();
    private volatile String fenced;

    /**
     * {@code graceMs}: how long a missing quorum that rests partly on broken links waits for those
     * peers' liveness connections to say whether their processes are gone.
     */
    public Membership(int self, int world, Messenger messenger, Listener listener, Timer timer, long graceMs) {
        this(self, world, messenger, listener, timer, graceMs, Runnable::run);
    }

    /**
     * {@code effects} runs every send and listener call, in the order they were decided (a single
     * thread of their own in a session, so that a blocked send stalls neither heartbeats nor the
     * control channel; tests run them in place).
     */
    public Membership(int self, int world, Messenger messenger, Listener listener, Timer timer, long graceMs, Executor effects) {
        this.effects = effects;
        this.self = self;
        this.messenger = messenger;
        this.listener = listener;
        this.timer = timer;
        this.graceMs = graceMs;
        this.view = MembershipView.initial(world);
    }

    public MembershipView view() {
        lock.lock();
        try {
            return view;
        } finally {
            lock.unlock();
        }
    }

    /** Why this peer was fenced, or null while it is a member. */
    public String fencedBecause() {
        return fenced;
    }

    /** This peer's failure detector suspects {@code peer}, on {@code evidence}. */
    public void suspect(int peer, String why, Evidence evidence) {
        suspect(Map.of(peer, why), evidence);
    }

    /** This peer's failure detector suspects these peers at once (one pass over its clocks), on {@code evidence}. */
    public void suspect(Map<Integer, String> peers, Evidence evidence) {
        lock.lock();
        try {
            if (fenced != null) {
                return;
            }
            boolean any = false;
            for (Map.Entry<Integer, String> e : new TreeMap<>(peers).entrySet()) {
                int peer = e.getKey();
                if (peer == self || !view.contains(peer)) {
                    continue;
                }
                any = true;
                boolean first = suspected.putIfAbsent(peer, e.getValue()) == null;
                switch (evidence) {
                    case PROCESS_GONE -> {
                        dead.add(peer);
                        linkOnly.remove(peer);
                    }
                    case LINK_BROKEN -> {
                        if (first) {
                            linkOnly.add(peer);
                        }
                    }
                    case SILENT -> linkOnly.remove(peer);
                    default -> throw new IllegalStateException("unknown evidence " + evidence);
                }
            }
            if (any) {
                decide();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Peer {@code from} suspects {@code suspect} (it reported to this peer as its coordinator). */
    public void onSuspicion(int from, long epoch, int suspect, String why) {
        lock.lock();
        try {
            if (fenced != null || !view.contains(from) || !view.contains(suspect)) {
                return; // from a peer already removed, or about one already removed
            }
            if (suspect == self) {
                return; // only a confused or forged report names its own coordinator: reporters send to a peer they trust
            }
            suspected.putIfAbsent(suspect, "peer " + from + " reported: " + why);
            decide();
        } finally {
            lock.unlock();
        }
    }

    /** A view sent by peer {@code from}. */
    public void onView(int from, MembershipView next) {
        lock.lock();
        try {
            if (fenced != null) {
                return;
            }
            if (next.epoch() <= view.epoch()) {
                LOG.debug("peer {}: ignoring {} from peer {}, holding {}", self, next, from, view);
                return;
            }
            if (!view.contains(from)) {
                LOG.warn("peer {}: ignoring {} from peer {}, which is not a member of {}", self, next, from, view);
                return; // a removed coordinator's view fences nobody
            }
            if (!next.contains(self)) {
                fence("peer " + from + "'s " + next + " no longer holds this peer: the others declared it lost (paused, partitioned or"
                        + " too slow) and its share runs elsewhere");
                return;
            }
            install(next);
            decide();
        } finally {
            lock.unlock();
        }
    }

    private void decide() {
        if (fenced != null) {
            return;
        }
        List<Integer> live = new ArrayList<>();
        List<Integer> counted = new ArrayList<>();
        for (int m : view.members()) {
            if (!suspected.containsKey(m)) {
                live.add(m);
            }
            if (!dead.contains(m)) {
                counted.add(m);
            }
        }
        if (!isQuorum(live, counted)) {
            if (linkOnly.stream().anyMatch(p -> !dead.contains(p))) {
                if (!recheckPending) {
                    recheckPending = true;
                    timer.after(graceMs, this::recheck);
                }
                return; // a moment for the liveness connections to say which of those processes are gone
            }
            fence("it reaches only peer(s) " + live + " of " + view + " (" + describeSuspicions() + "): not a quorum, so the others may"
                    + " have declared it lost");
            return;
        }
        int coordinator = live.get(0);
        if (coordinator == self) {
            List<Integer> remove = new ArrayList<>(suspected.keySet());
            if (remove.isEmpty()) {
                return;
            }
            MembershipView next = view.without(remove);
            LOG.warn("peer {} decides {}: removes {} ({})", self, next, remove, describeSuspicions());
            for (int p = 0; p < view.world(); p++) {
                if (p != self) {
                    int to = p;
                    effect(() -> messenger.sendView(to, next)); // the removed too: a paused peer that reads it stops
                }
            }
            install(next);
            return;
        }
        for (Map.Entry<Integer, String> s : suspected.entrySet()) {
            Integer to = reportedTo.get(s.getKey());
            if (to == null || to != coordinator) {
                reportedTo.put(s.getKey(), coordinator);
                long epoch = view.epoch();
                int suspect = s.getKey();
                String why = s.getValue();
                effect(() -> messenger.sendSuspicion(coordinator, epoch, suspect, why));
            }
        }
    }

    /** Hands a send or listener call to the effects executor; once the session closed it, nothing needs doing. */
    private void effect(Runnable r) {
        try {
            effects.execute(r);
        } catch (RejectedExecutionException e) {
            LOG.debug("peer {}: membership closed, an effect dropped", self);
        }
    }

    private void recheck() {
        lock.lock();
        try {
            recheckPending = false;
            linkOnly.clear(); // the grace is over: a broken link with a live process behind it is a silence
            decide();
        } finally {
            lock.unlock();
        }
    }

    /** More than half of the members not known dead, or exactly half with the lowest of them. */
    static boolean isQuorum(List<Integer> live, List<Integer> counted) {
        if (live.isEmpty()) {
            return false;
        }
        int twice = 2 * live.size();
        return twice > counted.size() || twice == counted.size() && live.contains(counted.get(0));
    }

    private void install(MembershipView next) {
        List<Integer> removed = next.removedSince(view);
        Map<Integer, String> why = new TreeMap<>();
        for (int p : removed) {
            why.put(p, suspected.getOrDefault(p, "removed by " + next));
            suspected.remove(p);
            dead.remove(p);
            linkOnly.remove(p);
            reportedTo.remove(p);
        }
        suspected.keySet().removeIf(p -> !next.contains(p));
        view = next;
        LOG.info("peer {} installs {} (removed {})", self, next, removed);
        effect(() -> listener.installed(next, removed, why));
    }

    /** This peer knows by itself that the others must have declared it lost (it did not run for longer than the failure timeout). */
    public void fenceSelf(String why) {
        lock.lock();
        try {
            if (fenced == null) {
                fence(why);
            }
        } finally {
            lock.unlock();
        }
    }

    private void fence(String why) {
        fenced = "peer " + self + " is fenced: " + why;
        LOG.error("{}; it stops at once", fenced);
        String because = fenced;
        effect(() -> listener.fenced(because));
    }

    private String describeSuspicions() {
        List<String> parts = new ArrayList<>();
        suspected.forEach((p, why) -> parts.add("peer " + p + (dead.contains(p) ? " gone" : " suspected") + ": " + why));
        return String.join("; ", parts);
    }
}
