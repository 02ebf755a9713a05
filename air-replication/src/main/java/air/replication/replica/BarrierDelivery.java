package air.replication.replica;

import air.runtime.impl.cluster.ClusterSession;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What a snapshot of this peer waits for before it is committed: every producer here has sent the
 * snapshot's barrier (or its end of stream) to all its destinations, and everything this peer sent
 * on data channels before that is in every other live peer's memory ({@code Transport.delivered}).
 * Until then the records and barrier before the snapshot may still sit in this peer's send queue or
 * socket, and would die with it while the takeover resumed its producers after them.
 *
 * <p>A peer lost meanwhile is skipped: its share is taken over from its own copy, and what it misses
 * is sent again from the producers' logs. Anything else that does not complete by the deadline fails
 * the checkpoint (an {@link IOException}), and the coordinator's next one is whole.
 */
final class BarrierDelivery implements ReplicaService.Delivery {

    private final ClusterSession session;
    /** Every replicated shuffle output of this job on this peer, including those of blocks taken over later. */
    private final List<ReplicatedShuffleOutput> outputs = new CopyOnWriteArrayList<>();
    /** Signalled whenever an output has sent a barrier or its end everywhere: a lock, not a monitor, for virtual threads. */
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition sent = lock.newCondition();

    BarrierDelivery(ClusterSession session) {
        this.session = session;
    }

    /** The outputs watched: each registers here when it is built. */
    List<ReplicatedShuffleOutput> outputs() {
        return outputs;
    }

    /** An output has sent a barrier, or its end of stream, to all its destinations. */
    void barrierSent() {
        lock.lock();
        try {
            sent.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void await(long id, long deadlineMillis) throws IOException, InterruptedException {
        awaitBarriers(id, deadlineMillis);
        awaitDelivered(id, deadlineMillis);
    }

    private void awaitBarriers(long id, long deadlineMillis) throws IOException, InterruptedException {
        lock.lock();
        try {
            while (true) {
                List<Integer> behind = new ArrayList<>();
                for (ReplicatedShuffleOutput o : outputs) {
                    if (!o.passed(id)) {
                        behind.add(o.producer());
                    }
                }
                if (behind.isEmpty()) {
                    return;
                }
                long left = deadlineMillis - System.currentTimeMillis();
                if (left <= 0) {
                    throw new IOException("checkpoint " + id + " of peer " + session.self() + " is not committed: producer(s) " + behind
                            + " had not sent its barrier by the deadline");
                }
                sent.await(left, TimeUnit.MILLISECONDS);
            }
        } finally {
            lock.unlock();
        }
    }

    private void awaitDelivered(long id, long deadlineMillis) throws IOException, InterruptedException {
        Map<Integer, CompletableFuture<Void>> marks = new LinkedHashMap<>();
        for (int p = 0; p < session.peers(); p++) {
            if (p != session.self() && !session.isGone(p)) {
                marks.put(p, session.transport().delivered(p));
            }
        }
        for (Map.Entry<Integer, CompletableFuture<Void>> m : marks.entrySet()) {
            int peer = m.getKey();
            try {
                m.getValue().get(Math.max(0, deadlineMillis - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (!session.isGone(peer)) {
                    throw new IOException("checkpoint " + id + " of peer " + session.self() + " is not committed: delivery to peer " + peer
                            + " of what was sent before its barrier was not confirmed (" + e.getCause().getMessage() + ")", e.getCause());
                }
            } catch (TimeoutException e) {
                throw new IOException("checkpoint " + id + " of peer " + session.self() + " is not committed: peer " + peer
                        + " did not confirm by the deadline that it received what was sent before its barrier", e);
            }
        }
    }
}
