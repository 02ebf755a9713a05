package air.runtime.impl.checkpoint;

import air.runtime.api.CommittingSinkWriter;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The second phase of the two-phase-commit sinks of one peer: once a checkpoint this peer wrote is
 * {@linkplain Completeness complete} (every peer wrote it; under replication, this peer's replicas
 * hold it), every {@link CommittingSinkWriter} of this peer is told, on one committer thread, in
 * order of checkpoints. Only the newest complete checkpoint is told: a commit covers everything
 * pre-committed before it. No coordinator: each peer learns completeness from the store itself, as
 * a stop with a savepoint does.
 */
public final class CheckpointCommits implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CheckpointCommits.class);
    /** How often a peer that wrote a checkpoint asks whether every other peer has. */
    private static final long POLL_NANOS = 10_000_000;

    /** Whether a checkpoint this peer wrote counts as complete for its sinks' commits. */
    @FunctionalInterface
    public interface Completeness {
        boolean complete(long id) throws Exception;
    }

    private final String jobName;
    private final Completeness completeness;
    private final List<CommittingSinkWriter<?>> writers = new CopyOnWriteArrayList<>();
    private final AtomicLong newestWritten = new AtomicLong();
    private volatile long committed;
    private volatile boolean closed;
    private Thread committer;

    public CheckpointCommits(String jobName, Completeness completeness) {
        this.jobName = jobName;
        this.completeness = completeness;
    }

    /** Attaches to {@code coordinator}: each checkpoint it writes may complete. */
    public CheckpointCommits listenTo(CheckpointCoordinator coordinator) {
        coordinator.onWritten((id, ok) -> {
            if (ok) {
                written(id);
            }
        });
        return this;
    }

    /** A writer to tell of completed checkpoints (a sink instance of this peer, taken over ones too). */
    public synchronized void register(CommittingSinkWriter<?> writer) {
        writers.add(writer);
        if (committer == null && !closed) {
            committer = Thread.ofVirtual().name(jobName + "/commits").start(this::run);
        }
    }

    /** The newest checkpoint whose commits were handed to the writers (0: none yet). */
    public long committed() {
        return committed;
    }

    /**
     * Waits until checkpoint {@code id} (the final one, at the end of a job) is committed by every
     * writer of this peer; with none, until it is complete everywhere all the same (meanwhile this
     * peer stands in for the others' checkpoints, whose sinks may need them to commit). Logs a WARN every
     * {@code noteEveryMs} while it waits (the other peers have not all written it yet).
     *
     * @param timeoutMs how long to wait at most (0: as long as {@code giveUp} says no)
     * @param giveUp    checked while waiting: the job failed, was cancelled or stopped meanwhile
     * @param whileWaiting run at every poll (this peer stands in for the checkpoints the others still take)
     * @return true when committed, false when {@code giveUp} said so first
     * @throws IllegalStateException when {@code timeoutMs} ran out, naming the checkpoint
     */
    public boolean awaitCommitted(long id, long timeoutMs, long noteEveryMs, BooleanSupplier giveUp, Runnable whileWaiting)
            throws InterruptedException {
        long start = System.nanoTime();
        long nextNote = noteEveryMs > 0 ? noteEveryMs : Long.MAX_VALUE;
        while (writers.isEmpty() ? !completeNow(id) : committed < id) {
            if (giveUp.getAsBoolean() || closed) {
                return false;
            }
            long waitedMs = (System.nanoTime() - start) / 1_000_000;
            if (timeoutMs > 0 && waitedMs >= timeoutMs) {
                throw new IllegalStateException("job '" + jobName + "': " + CheckpointCoordinator.describe(id) + " was not complete on every"
                        + " peer within " + timeoutMs + " ms, so the sinks' last output is not committed (a restart resumes from the newest"
                        + " complete checkpoint and writes it again)");
            }
            if (waitedMs >= nextNote) {
                nextNote += noteEveryMs;
                LOG.warn("job '{}': {} ms waiting for {} to be complete on every peer before the sinks commit their last output", jobName,
                        waitedMs, CheckpointCoordinator.describe(id));
            }
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            whileWaiting.run();
            LockSupport.parkNanos(this, POLL_NANOS);
        }
        return true;
    }

    private boolean completeNow(long id) {
        try {
            return completeness.complete(id);
        } catch (Exception e) {
            return false; // asked again at the next poll
        }
    }

    /** This peer wrote checkpoint {@code id}. */
    void written(long id) {
        newestWritten.accumulateAndGet(id, Math::max);
        Thread t = committer;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    private void run() {
        while (!closed) {
            long id = newestWritten.get();
            if (id <= committed) {
                LockSupport.park(this);
                continue;
            }
            boolean complete;
            try {
                complete = completeness.complete(id);
            } catch (Exception e) {
                LOG.warn("job '{}': cannot tell whether checkpoint {} is complete ({}); asking again", jobName, id, e.toString());
                complete = false;
            }
            if (!complete) {
                LockSupport.parkNanos(this, POLL_NANOS);
                continue;
            }
            commitAll(id);
        }
    }

    private void commitAll(long id) {
        boolean all = true;
        for (CommittingSinkWriter<?> w : writers) {
            try {
                w.commit(id);
            } catch (Exception e) {
                all = false;
                LOG.warn("job '{}': sink writer {} could not commit checkpoint {}: {}; it is tried again at the next checkpoint", jobName,
                        w, id, e.toString());
            }
        }
        committed = id;
        if (all) {
            LOG.debug("job '{}': checkpoint {} committed by {} sink writer(s)", jobName, id, writers.size());
        }
    }

    /** Stops the committer; what was not committed yet is committed by the writers' close or the next run's restore. */
    @Override
    public void close() {
        Thread t;
        synchronized (this) {
            closed = true;
            t = committer;
        }
        if (t != null) {
            LockSupport.unpark(t);
            try {
                t.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
