package air.replication.replica;

import air.runtime.impl.cluster.MembershipView;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The one checkpoint the blocks a view moved together resume from, agreed by every member. With
 * two or more replicas, blocks lost together must all resume from one checkpoint (what they sent
 * each other after the older of two copies lived only in the lost peers' logs), and producers keep
 * their logs from the replicated checkpoint before the newest ({@link ReplicaService#logCut}). Each
 * peer knows the replicated checkpoints from REPLICATED notices, which a peer dying in the middle of
 * sending them leaves some survivors without: two hosts deciding alone could pick different
 * checkpoints. So on such a view every member tells every member what it knows of the moved blocks
 * (CUTS: per block, the replicated checkpoint before the newest and the newest), and every host
 * decides from the same messages, those of every member of the view: the newest "before the newest"
 * any member knows, which is at or after where any member's producers trimmed their logs.
 *
 * <p>A member lost before it told the others supersedes the view: the wait fails, and so does the
 * job (two views in a row that each move blocks while the first is being agreed are not survived).
 */
final class CutAgreement {

    /** What one member knows of one block: its replicated checkpoint before the newest, and the newest. */
    record Cuts(long previous, long newest) { }

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition heard = lock.newCondition();
    /** Per view epoch, per member, what it said (guarded by {@link #lock}). */
    private final Map<Long, Map<Integer, Map<Integer, Cuts>>> said = new HashMap<>();

    /** Member {@code from} told what it knows of the blocks view {@code epoch} moved (on the replica reader's thread, or this peer's). */
    void heard(long epoch, int from, Map<Integer, Cuts> cuts) {
        lock.lock();
        try {
            said.computeIfAbsent(epoch, e -> new HashMap<>()).putIfAbsent(from, Map.copyOf(cuts));
            heard.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits until every member of {@code view} said what it knows of {@code moved}, then decides.
     * Fails when a newer view is installed first ({@code installed}), or at {@code deadlineMillis}.
     */
    long await(MembershipView view, List<Integer> moved, Supplier<MembershipView> installed, long deadlineMillis)
            throws InterruptedException {
        lock.lock();
        try {
            while (true) {
                Map<Integer, Map<Integer, Cuts>> got = said.getOrDefault(view.epoch(), Map.of());
                List<Integer> silent = new ArrayList<>();
                for (int m : view.members()) {
                    if (!got.containsKey(m)) {
                        silent.add(m);
                    }
                }
                if (silent.isEmpty()) {
                    return decide(got.values(), moved);
                }
                if (installed.get().epoch() > view.epoch()) {
                    throw new IllegalStateException("peer(s) " + silent + " were lost before they said which checkpoints of block(s) "
                            + moved + " they knew replicated (" + installed.get() + " followed " + view + "): the blocks cannot agree"
                            + " on one checkpoint to resume from");
                }
                long left = deadlineMillis - System.currentTimeMillis();
                if (left <= 0) {
                    throw new IllegalStateException("peer(s) " + silent + " did not say which checkpoints of block(s) " + moved
                            + " they knew replicated (" + view + ")");
                }
                heard.await(Math.min(left, 100), TimeUnit.MILLISECONDS); // also re-reads the installed view
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * The checkpoint the {@code moved} blocks resume from, given what every member said: the newest
     * "before the newest" any member knows of any of them (no member's producers trimmed past it);
     * while none is known (at most one snapshot replicated, nothing trimmed), the oldest of the
     * blocks' newest, so that each has a copy at it. A pure function: every host decides alike.
     */
    static long decide(Collection<Map<Integer, Cuts>> said, List<Integer> moved) {
        long at = 0;
        for (Map<Integer, Cuts> member : said) {
            for (int b : moved) {
                Cuts c = member.get(b);
                if (c != null) {
                    at = Math.max(at, c.previous());
                }
            }
        }
        if (at > 0) {
            return at;
        }
        at = Long.MAX_VALUE;
        for (int b : moved) {
            long newest = 0;
            for (Map<Integer, Cuts> member : said) {
                Cuts c = member.get(b);
                if (c != null) {
                    newest = Math.max(newest, c.newest());
                }
            }
            at = Math.min(at, newest);
        }
        return at;
    }

    /** Forgets what was said for views up to {@code epoch}. */
    void forget(long epoch) {
        lock.lock();
        try {
            said.keySet().removeIf(e -> e <= epoch);
        } finally {
            lock.unlock();
        }
    }
}
