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
    private final LongConsumer stop;
    private final CompletableFuture<Long> savepoint = new CompletableFuture<>();
    private final AtomicLong lowestHeld = new AtomicLong(Long.MAX_VALUE);
    private final AtomicBoolean waiting = new AtomicBoolean();
    private volatile boolean requested;

    SavepointStop(CheckpointCoordinator coordinator, CheckpointStore store, String key, String jobName, int peers, LongConsumer stop) {
        this.coordinator = coordinator;
        this.store = store;
        this.key = key;
        this.jobName = jobName;
        this.peers = peers;
        this.stop = stop;
        coordinator.onWritten(this::written);
    }

    /** Asks for the stop; the future completes with the savepoint's id once every peer wrote it. Asking again changes nothing. */
    CompletableFuture<Long> request() {
        if (!requested && !savepoint.isDone()) {
            coordinator.wholeFromNow();
            requested = true;
            LOG.info("job '{}': stop with a savepoint asked: the sources hold after their next checkpoint", jobName);
        }
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
    void stoppedAt(long id) {
        savepoint.complete(id);
    }

    private void written(long id, boolean ok) {
        long held = lowestHeld.get();
        if (!requested || id < held) {
            return;
        }
        if (!ok && id == held) {
            requested = false; // the sources read on; a new request takes the next checkpoint
            lowestHeld.set(Long.MAX_VALUE);
            LOG.warn("job '{}': savepoint {} could not be written: the job goes on", jobName, id);
            savepoint.completeExceptionally(new IllegalStateException("job '" + jobName + "': savepoint " + id
                    + " could not be written to " + store.describe() + " (see the WARN before); the job goes on"));
            return;
        }
        if (ok && waiting.compareAndSet(false, true)) {
            Thread.ofVirtual().name(jobName + "/savepoint").start(() -> awaitEveryPeer(held));
        }
    }

    /** This peer wrote its part of {@code id}: waits until every peer has, then stops the job there. */
    private void awaitEveryPeer(long id) {
        try {
            while (!savepoint.isDone() && !store.writtenByAll(key, id, peers)) {
                LockSupport.parkNanos(POLL_NANOS);
            }
        } catch (IOException e) {
            LOG.warn("job '{}': cannot tell whether every peer wrote savepoint {} to {}: {}", jobName, id, store.describe(), e.toString());
            return;
        }
        if (!savepoint.isDone()) {
            LOG.info("job '{}': savepoint {} written by every peer to {}: stopping there", jobName, id, store.describe());
            stop.accept(id);
        }
    }
}
