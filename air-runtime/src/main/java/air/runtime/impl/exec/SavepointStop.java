package air.runtime.impl.exec;

import air.runtime.api.CheckpointStore;
import air.runtime.impl.checkpoint.CheckpointCoordinator;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A stop with a savepoint on this peer, with no coordinator anywhere: once asked, every source of
 * this peer takes its next checkpoint at once (whole) and then holds, reading nothing more, so no
 * checkpoint after the lowest one they held at can complete: that one is the savepoint. Sources of
 * other peers go on as usual and send its barrier in their own time. Once this peer wrote its
 * part and the store has every peer's part ({@link CheckpointStore#writtenByAll}), the job stops
 * at it ({@code stop}): no end of input, no window fired early; the other peers hear of it and
 * stop too. A run on any layout then resumes from it. A savepoint whose write failed is given up:
 * the sources read on, and the caller hears why.
 */
final class SavepointStop {

    private static final Logger LOG = LoggerFactory.getLogger(SavepointStop.class);
    /** How often a peer that wrote its part asks the store whether every other peer wrote theirs. */
    private static final long POLL_NANOS = 20_000_000;

    private final CheckpointCoordinator coordinator;
    private final CheckpointStore store;
    private final String key;
    private final String jobName;
    private final int peers;
    /** How long every peer may take to write the savepoint once this one has: then it is given up. */
    private final long patienceNanos;
    private final LongConsumer stop;
    private final AtomicLong lowestHeld = new AtomicLong(Long.MAX_VALUE);
    private final AtomicBoolean waiting = new AtomicBoolean();
    /** The savepoint of the request under way (guarded by this for its replacement). */
    private volatile CompletableFuture<Long> savepoint = new CompletableFuture<>();
    private volatile boolean requested;
    /** Set once the job stopped at a savepoint: no request is taken after. */
    private volatile boolean stopped;

    SavepointStop(CheckpointCoordinator coordinator, CheckpointStore store, String key, String jobName, int peers, long intervalMs,
                  LongConsumer stop) {
        this.coordinator = coordinator;
        this.store = store;
        this.key = key;
        this.jobName = jobName;
        this.peers = peers;
        this.patienceNanos = Math.max(30_000L, 20 * intervalMs) * 1_000_000L;
        this.stop = stop;
        coordinator.onWritten(this::written);
    }

    /**
     * Asks for the stop; the future completes with the savepoint's id once every peer wrote it.
     * Asking again while one is under way (or after the job stopped) returns the same future; after
     * one was given up, a new request takes the next checkpoint.
     */
    synchronized CompletableFuture<Long> request() {
        if (stopped || requested) {
            return savepoint;
        }
        if (savepoint.isDone()) {
            savepoint = new CompletableFuture<>();
        }
        coordinator.wholeFromNow(true);
        requested = true;
        LOG.info("job '{}': stop with a savepoint asked: the sources hold after their next checkpoint", jobName);
        return savepoint;
    }

    /** Whether sources should take their next checkpoint now and hold after it (read on every batch: one volatile read). */
    boolean requested() {
        return requested;
    }

    /** A source sent the barrier of checkpoint {@code id} and holds: no checkpoint after the lowest such can complete. */
    void heldAt(long id) {
        lowestHeld.accumulateAndGet(id, Math::min);
    }

    /** The job ended before a savepoint was taken (its input ended first, or it failed). */
    void jobEnded(String how) {
        savepoint.completeExceptionally(new IllegalStateException("job '" + jobName + "' " + how + " before a savepoint was taken"));
    }

    /** The job stopped at {@code id} (heard from another peer, or found here). */
    synchronized void stoppedAt(long id) {
        stopped = true;
        if (!savepoint.complete(id) && savepoint.isCompletedExceptionally()) {
            savepoint = CompletableFuture.completedFuture(id); // stopped by another peer after this one gave up
        }
    }

    private void written(long id, boolean ok) {
        long held = lowestHeld.get();
        if (!requested || id < held) {
            return;
        }
        if (!ok && id == held) {
            giveUp("savepoint " + id + " could not be written to " + store.describe() + " (see the WARN before)");
            return;
        }
        if (ok && waiting.compareAndSet(false, true)) {
            Thread.ofVirtual().name(jobName + "/savepoint").start(() -> awaitEveryPeer(held));
        }
    }

    /** This peer wrote its part of {@code id}: waits until every peer has, then stops the job there. */
    private void awaitEveryPeer(long id) {
        long deadline = System.nanoTime() + patienceNanos;
        CompletableFuture<Long> mine = savepoint;
        try {
            while (!mine.isDone() && !store.writtenByAll(key, id, peers)) {
                if (System.nanoTime() - deadline > 0) {
                    giveUp("not every peer wrote savepoint " + id + " to " + store.describe() + " within " + patienceNanos / 1_000_000
                            + " ms (a peer's write failed, or its directory is not this one)");
                    return;
                }
                LockSupport.parkNanos(POLL_NANOS);
            }
        } catch (IOException e) {
            giveUp("cannot tell whether every peer wrote savepoint " + id + " to " + store.describe() + ": " + e);
            return;
        }
        if (!mine.isDone()) {
            LOG.info("job '{}': savepoint {} written by every peer to {}: stopping there", jobName, id, store.describe());
            stop.accept(id);
        }
    }

    /** The savepoint cannot be taken: the sources read on, the next checkpoints are as usual, and the caller hears why. */
    private synchronized void giveUp(String why) {
        if (stopped) {
            return;
        }
        requested = false;
        lowestHeld.set(Long.MAX_VALUE);
        waiting.set(false);
        coordinator.wholeFromNow(false);
        LOG.warn("job '{}': {}: the savepoint is given up and the job goes on", jobName, why);
        savepoint.completeExceptionally(new IllegalStateException("job '" + jobName + "': " + why + "; the job goes on"));
    }
}
