package air.runtime.impl.checkpoint;

import air.runtime.JobEvent;
import air.runtime.api.CheckpointStore;
import air.runtime.impl.event.JobEvents;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This peer's side of one job's checkpoints: collects every local tasklet's part of each
 * checkpoint and, once all are in, writes them to the store on a writer thread of its own, in
 * checkpoint order, so that tasklets never wait for the disk. A tasklet that has finished counts
 * with its last state for every later checkpoint. A checkpoint the store cannot write (an
 * {@link IOException}: a full disk, a lost mount) fails that checkpoint, not the job: a WARN names
 * it and the error, the job goes on and the next checkpoint tries again; a restart resumes from
 * the newest one every peer completed.
 *
 * <p>Incremental checkpoints: the coordinator decides, once per checkpoint, whether its tasklets
 * write whole state ({@link #full}): the first checkpoint of a run, then every {@code fullEvery}-th;
 * in between, operators that can write only what changed since the checkpoint before. A
 * checkpoint of changes is written with its <b>base</b>, the whole one its chain starts from, and
 * only when the checkpoint before it was written: after a failed write every checkpoint up to
 * the next whole one is skipped (WARN), and the next one not yet begun is whole. Meters: {@code air.checkpoint.duration} (first part to
 * durable), {@code air.checkpoint.size} (bytes), {@code air.checkpoints} (written),
 * {@code air.checkpoints.failed} (writes that failed).
 */
public final class CheckpointCoordinator implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CheckpointCoordinator.class);

    /**
     * The id of the final checkpoint, which a job that ended well writes on every peer: every
     * tasklet's last state ({@link #writeFinal}). The same on every peer without a message, and
     * above any id a run reaches, so that its commit covers every pre-commit and a later run
     * resumes from it (and finds everything ended) rather than from an older one.
     */
    public static final long FINAL = 1L << 62;

    private final CheckpointStore store;
    private final String job;
    private final String jobName;
    private final int peer;
    private final int peers;
    private volatile Set<String> expected = Set.of();
    private final Consumer<Throwable> onFailure;
    private final TreeMap<Long, Map<String, byte[]>> pending = new TreeMap<>();
    private final Map<Long, Long> startedNanos = new HashMap<>();
    private final Map<String, byte[]> finished = new HashMap<>();
    /** The newest checkpoint handed to the writer before the final one (guarded by this). */
    private long drainedBeforeFinal = -1;
    /** The newest checkpoint this peer stood in for with its last states ({@link #standIn}; guarded by this). */
    private long stoodIn;
    /** Per part, the newest checkpoint it offered a part of (guarded by this). */
    private final Map<String, Long> offeredBy = new HashMap<>();
    private final ExecutorService writer;
    private final AtomicInteger inProgress = new AtomicInteger();
    private final Timer duration;
    private final DistributionSummary size;
    private final Counter written;
    private final Counter failed;
    private final Counter changesOnly;
    private final Counter slow;
    private final MeterRegistry registry;
    /** Removed at {@link #close}: a later run of the same job registers its own, bound to its coordinator. */
    private final Gauge writeAge;
    /** The checkpoint being written now, or -1; set after {@link #writingSinceNanos}. */
    private volatile long writingId = -1;
    private volatile long writingSinceNanos;
    /** The write already reported as slow. */
    private final AtomicLong reportedSlow = new AtomicLong(-1);
    private volatile long slowAfterNanos = Long.MAX_VALUE;
    private volatile long lastWritten;
    /** Checkpoints pending with a part that holds changes (guarded by this). */
    private final Set<Long> withChanges = new HashSet<>();
    /** The newest checkpoint handed to the writer (guarded by this). */
    private long lastDrained;
    private volatile long newestOffered;
    private volatile JobEvents events = JobEvents.NONE;
    private final int fullEvery;
    /** Per checkpoint begun and not yet written: whether it is whole ({@link #full}). */
    private final Map<Long, Boolean> wholeness = new HashMap<>();
    /** The first checkpoint not yet decided that is whole. */
    private long nextFull;
    /** The newest checkpoint decided. */
    private long newestDecided;
    /** The whole checkpoint the chain of {@link #lastWritten} starts from (the writer thread's). */
    private long writtenBase;
    /** Told, on the writer thread, of each checkpoint written (true) or not (false): a stop with a savepoint waits for one. */
    private volatile Written onWritten = (id, ok) -> { };
    /** From now on every checkpoint not yet decided is whole (a savepoint was asked for on this peer). */
    private volatile boolean wholeFromNow;

    /** What the writer thread tells of each checkpoint it was handed. */
    public interface Written {
        void written(long id, boolean ok);
    }

    /**
     * @param job       the store's key of this pipeline and layout
     * @param fullEvery every how many checkpoints one holds whole state (1: every one; the others hold changes)
     */
    public CheckpointCoordinator(CheckpointStore store, String job, String jobName, int peer, int peers,
                                 long restoredId, int fullEvery, MeterRegistry registry, Consumer<Throwable> onFailure) {
        if (fullEvery < 1) {
            throw new IllegalArgumentException("fullEvery must be >= 1, was " + fullEvery);
        }
        this.fullEvery = fullEvery;
        this.nextFull = restoredId + 1;
        this.newestDecided = restoredId;
        this.writtenBase = restoredId;
        this.store = store;
        this.job = job;
        this.jobName = jobName;
        this.peer = peer;
        this.peers = peers;
        this.onFailure = onFailure;
        this.lastWritten = restoredId;
        this.writer = Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().daemon().name(jobName + "/checkpoint-writer").unstarted(r));
        this.duration = Timer.builder("air.checkpoint.duration").tag("job", jobName).description("first part to durable, this peer")
                .register(registry);
        this.size = DistributionSummary.builder("air.checkpoint.size").tag("job", jobName).baseUnit("bytes").register(registry);
        this.written = Counter.builder("air.checkpoints").tag("job", jobName).description("checkpoints written by this peer")
                .register(registry);
        this.changesOnly = Counter.builder("air.checkpoints.changes").tag("job", jobName)
                .description("checkpoints written holding only changes since the one before").register(registry);
        this.failed = Counter.builder("air.checkpoints.failed").tag("job", jobName)
                .description("checkpoints this peer could not write (the job went on)").register(registry);
        this.slow = Counter.builder("air.checkpoints.slow").tag("job", jobName)
                .description("checkpoint writes that took longer than the stall report threshold while barriers waited").register(registry);
        this.registry = registry;
        this.writeAge = Gauge.builder("air.checkpoint.write.age", this, CheckpointCoordinator::writeAgeMs).tag("job", jobName)
                .baseUnit("ms").description("how long the checkpoint write under way has taken, 0 when none is").register(registry);
    }

    /** Where {@link air.runtime.JobEvent.CheckpointWritten} goes; set before any tasklet runs. */
    public void events(JobEvents publisher) {
        events = publisher;
    }

    /** The part names of every local tasklet; set once, before any tasklet runs. */
    public void expect(Set<String> parts) {
        expected = Set.copyOf(parts);
    }

    /** Where the writer thread says which checkpoints it wrote and which it could not (after the listeners before); set before any tasklet runs. */
    public synchronized void onWritten(Written listener) {
        Written before = onWritten;
        onWritten = (id, ok) -> {
            before.written(id, ok);
            listener.written(id, ok);
        };
    }

    /** Whether every checkpoint decided from now on is whole (a savepoint was asked for on this peer) or as usual. */
    public void wholeFromNow(boolean whole) {
        wholeFromNow = whole;
    }

    /** Tasklets taken over from a dead peer join: their parts are expected in every checkpoint not yet written. */
    public synchronized void expectMore(Set<String> parts) {
        Set<String> all = new HashSet<>(expected);
        all.addAll(parts);
        expected = Set.copyOf(all);
    }

    /**
     * Whether checkpoint {@code id} holds whole state rather than changes: decided when a tasklet
     * first asks, the same for every tasklet of this peer.
     */
    public synchronized boolean full(long id) {
        Boolean whole = wholeness.get(id);
        if (whole == null) {
            whole = id >= nextFull || wholeFromNow || fullEvery > 1 && store.prefersWhole();
            if (whole) {
                nextFull = id + fullEvery;
            }
            newestDecided = Math.max(newestDecided, id);
            if (id > Math.max(lastWritten, lastDrained)) { // else too late to be written: nothing would take the entry out
                wholeness.put(id, whole);
            }
        }
        return whole;
    }

    /** A write failed: checkpoints of changes after it cannot be restored, so the next one not yet begun is whole. */
    private synchronized void chainBroken() {
        nextFull = Math.min(nextFull, newestDecided + 1);
    }

    /** The newest checkpoint any local tasklet has offered a part of: where a taken-over source catches up to. */
    public long newestOffered() {
        return newestOffered;
    }

    /**
     * A tasklet's part of checkpoint {@code id}; tasklets offer their parts in increasing id order.
     *
     * @return false when checkpoint {@code id} was already handed to the writer without this part
     *         (a tasklet taken over from a lost peer catching up on the barriers it missed): the
     *         part is dropped, and the tasklet's next part must hold whole state, since no
     *         checkpoint holds this one for changes to follow
     */
    public synchronized boolean offer(long id, String part, byte[] bytes, boolean changes) {
        newestOffered = Math.max(newestOffered, id);
        offeredBy.merge(part, id, Math::max);
        if (id <= Math.max(lastWritten, lastDrained)) {
            return false;
        }
        Map<String, byte[]> parts = pending.computeIfAbsent(id, k -> {
            startedNanos.put(k, System.nanoTime());
            inProgress.incrementAndGet();
            return new HashMap<>();
        });
        parts.put(part, bytes);
        if (changes) {
            withChanges.add(id);
        }
        drain();
        return true;
    }

    /**
     * The first checkpoint that will hold {@code part}'s last state if it ends now: the one after
     * both the newest it offered a part of and the newest already handed to the writer (no
     * checkpoint between is handed over without this part's offer or last state). A two-phase-commit
     * sink pre-commits its last output under this id, so that only a checkpoint holding its end
     * commits it.
     */
    public synchronized long firstHolding(String part) {
        return Math.max(Math.max(lastWritten, lastDrained), offeredBy.getOrDefault(part, 0L)) + 1;
    }

    /** A tasklet ended: {@code bytes} stands for it in every checkpoint not yet written. */
    public synchronized void finished(String part, byte[] bytes) {
        finished.put(part, bytes);
        drain();
    }

    /**
     * Every local tasklet ended well: writes the {@linkplain #FINAL final checkpoint}, every
     * tasklet's last state, once the checkpoints before it are handed over; returns at once (the
     * writer tells {@link #onWritten} listeners, as for any checkpoint).
     *
     * @return false when there is nothing to write: this run resumed from a final checkpoint
     */
    public synchronized boolean writeFinal() {
        if (Math.max(lastWritten, lastDrained) >= FINAL) {
            return false;
        }
        drainedBeforeFinal = Math.max(lastWritten, lastDrained);
        pending.computeIfAbsent(FINAL, k -> {
            startedNanos.put(k, System.nanoTime());
            inProgress.incrementAndGet();
            return new HashMap<>();
        });
        drain();
        return true;
    }

    /**
     * Every local tasklet has ended and this peer wrote the final checkpoint, but another peer still
     * runs and began checkpoint {@code id}: writes every tasklet's last state as this peer's file of
     * it (a tasklet that ended counts with its last state for every later checkpoint), so that it
     * completes and the other peer's sinks commit — without it, they would wait for a checkpoint no
     * longer taken here. Only for ids newer than any this peer wrote; the final checkpoint stays
     * the newest.
     */
    public synchronized void standIn(long id) {
        if (drainedBeforeFinal < 0 || id >= FINAL || id <= Math.max(stoodIn, drainedBeforeFinal) || !finished.keySet().containsAll(expected)) {
            return;
        }
        stoodIn = id;
        Map<String, byte[]> parts = Map.copyOf(finished);
        writer.execute(() -> {
            try {
                store.write(job, id, id, peer, peers, parts);
                LOG.info("job '{}': checkpoint {} written by peer {} with its tasklets' last states (every one has ended)", jobName, id,
                        peer);
            } catch (IOException e) {
                LOG.warn("job '{}': checkpoint {} NOT written by peer {} with its tasklets' last states: {}", jobName, id, peer,
                        e.getMessage());
            }
        });
    }

    private void drain() {
        while (!pending.isEmpty()) {
            long id = pending.firstKey();
            Map<String, byte[]> parts = pending.get(id);
            for (String name : expected) {
                if (!parts.containsKey(name) && !finished.containsKey(name)) {
                    return;
                }
            }
            Map<String, byte[]> all = new HashMap<>(finished);
            all.putAll(parts);
            pending.remove(id);
            lastDrained = id;
            long started = startedNanos.remove(id);
            Boolean whole = wholeness.remove(id);
            boolean changes = withChanges.remove(id);
            // decided as changes but every part whole (operators that write whole state only): a whole checkpoint, a chain of its own
            boolean complete = whole == null || whole || !changes;
            writer.execute(() -> write(id, complete, all, started));
        }
    }

    private void write(long id, boolean whole, Map<String, byte[]> parts, long started) {
        if (!whole && lastWritten != id - 1) {
            failed.increment();
            inProgress.decrementAndGet();
            LOG.warn("job '{}': checkpoint {} NOT written by peer {}: it holds changes since checkpoint {}, which was not written; "
                    + "the next whole checkpoint starts a new chain", jobName, id, peer, id - 1);
            onWritten.written(id, false);
            return;
        }
        long base = whole ? id : writtenBase;
        writingSinceNanos = System.nanoTime();
        writingId = id;
        try {
            store.write(job, id, base, peer, peers, parts);
            long bytes = parts.values().stream().mapToLong(b -> b.length).sum();
            long nanos = System.nanoTime() - started;
            duration.record(nanos, TimeUnit.NANOSECONDS);
            size.record(bytes);
            written.increment();
            if (!whole) {
                changesOnly.increment();
            }
            writtenBase = base;
            lastWritten = id;
            LOG.info("job '{}': {} written by peer {}: {} parts, {} bytes, {} ms{}", jobName, describe(id), peer, parts.size(), bytes,
                    nanos / 1_000_000, whole ? "" : " (changes since checkpoint " + (id - 1) + ", chain from " + base + ")");
            events.publish(new JobEvent.CheckpointWritten(jobName, peer, JobEvents.now(), id,
                    parts.size(), bytes));
            onWritten.written(id, true);
        } catch (IOException e) {
            chainBroken();
            failed.increment();
            LOG.warn("job '{}': checkpoint {} NOT written by peer {} to {}: {}; the job goes on, the next checkpoint not yet begun "
                    + "tries again, whole (a restart resumes from checkpoint {} or another one every peer completed)", jobName, id, peer,
                    store.describe(), e.getMessage(), lastWritten);
            onWritten.written(id, false);
        } catch (RuntimeException e) {
            onFailure.accept(new IllegalStateException("checkpoint " + id + " could not be written to " + store.describe() + ": " + e, e));
        } finally {
            writingId = -1;
            inProgress.decrementAndGet();
        }
    }

    /** "checkpoint N", or "the final checkpoint". */
    public static String describe(long id) {
        return id == FINAL ? "the final checkpoint (" + FINAL + ")" : "checkpoint " + id;
    }

    /** Writes that take longer than {@code ms} are reported ({@link #reportIfSlow}); 0: never. */
    public void reportSlowWritesAfter(long ms) {
        slowAfterNanos = ms <= 0 ? Long.MAX_VALUE : TimeUnit.MILLISECONDS.toNanos(ms);
    }

    private double writeAgeMs() {
        return writingId < 0 ? 0 : (System.nanoTime() - writingSinceNanos) / 1e6;
    }

    /**
     * Called while sources hold barriers back because checkpoints are backlogged: a write that has
     * taken longer than the threshold (a store on a stuck file system: an NFS fsync that never
     * returns) is logged once at WARN and counted in {@code air.checkpoints.slow}, instead of
     * postponing barriers without a trace.
     */
    public void reportIfSlow() {
        long id = writingId;
        long age = System.nanoTime() - writingSinceNanos;
        if (id < 0 || age < slowAfterNanos) {
            return;
        }
        if (reportedSlow.getAndSet(id) == id) {
            return;
        }
        slow.increment();
        LOG.warn("job '{}': checkpoint {} has been writing to {} on peer {} for {} ms; sources hold further barriers back until it"
                + " returns (is the store's file system stuck?)", jobName, id, store.describe(), peer, TimeUnit.NANOSECONDS.toMillis(age));
    }

    /** Whether a checkpoint is being taken or written on this peer now. */
    public boolean inProgress() {
        return inProgress.get() > 0;
    }

    /** Checkpoints begun on this peer (a first part offered) and not yet durable. */
    public int underWay() {
        return inProgress.get();
    }

    public long lastWritten() {
        return lastWritten;
    }

    /**
     * The job's end: a job that ended well waits for the writes already handed over ({@link #close});
     * one that failed interrupts a write in flight instead, since its checkpoints no longer decide
     * anything it does (a replica copy waiting on peers a lost one can no longer reach, a file write
     * hanging on a stalled disk, would otherwise hold the failure up to a minute). A store writes
     * each part whole or not at all, so an interrupted write leaves nothing to mistake for one.
     */
    public void end(boolean jobFailed) {
        if (!jobFailed) {
            close();
            return;
        }
        registry.remove(writeAge);
        writer.shutdownNow();
        try {
            writer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits for the writes already handed over, then stops the writer thread. */
    @Override
    public void close() {
        registry.remove(writeAge);
        writer.shutdown();
        try {
            if (!writer.awaitTermination(60, TimeUnit.SECONDS)) {
                writer.shutdownNow();
            }
        } catch (InterruptedException e) {
            writer.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
