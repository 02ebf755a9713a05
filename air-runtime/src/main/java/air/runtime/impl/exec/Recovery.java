package air.runtime.impl.exec;

import air.runtime.CheckpointMismatchException;
import air.runtime.JobConfig;
import air.runtime.JobEvent;
import air.runtime.api.CheckpointStore;
import air.runtime.impl.checkpoint.CheckpointCoordinator;
import air.runtime.impl.checkpoint.FreshStart;
import air.runtime.impl.checkpoint.OperatorId;
import air.runtime.impl.checkpoint.OperatorIds;
import air.runtime.impl.checkpoint.PartNames;
import air.runtime.impl.checkpoint.SavedState;
import air.runtime.impl.checkpoint.StateMatch;
import air.runtime.impl.event.JobEvents;
import air.runtime.plan.PhysicalPlan;
import air.runtime.plan.Progress;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A checkpointed job's start on this peer: refuses what cannot be checkpointed, finds the newest
 * complete checkpoint of the same job name and layout, drops this peer's parts of newer, unfinished
 * ones, matches the saved operator states to this pipeline's operators by their stable ids
 * ({@link OperatorIds}, {@link StateMatch}: a changed pipeline resumes what still matches and says
 * what starts empty and what is dropped; a checkpoint of which nothing matches is refused), and
 * counts the tasklets back to their restored state (status RECOVERING until then).
 * Meters: {@code air.recovery.duration} (start to every tasklet restored), {@code air.recoveries}.
 */
public final class Recovery {

    private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

    private final JobConfig config;
    private final String key;
    private final int self;
    private final int peers;
    private final MeterRegistry registry;
    private final long startNanos;
    private final long restoredId;
    private final SavedState saved;
    private final StateMatch match;
    private final AtomicInteger restoring = new AtomicInteger();
    private final CheckpointStore.Claim claim;
    /** Resumed onto another layout: the key of the checkpoint's layout; null when the layout is the same (or nothing resumed). */
    private final Layout rescaledFrom;
    private final PhysicalPlan plan;
    private volatile JobEvents events = JobEvents.NONE;

    /**
     * A layout checkpoints were written under: its key, peers and workers, the newest checkpoint
     * complete there and peer 0's parts of it (read to find it: not read again).
     */
    record Layout(String key, int peers, int workers, long newest, CheckpointStore.Restored first) {
        @Override
        public String toString() {
            return peers + " peer(s) x " + workers + " worker(s)";
        }
    }

    private Recovery(PhysicalPlan plan, JobConfig config, String key, int self, int peers, MeterRegistry registry, long startNanos,
                     Optional<CheckpointStore.Restored> restored, StateMatch match, SavedState saved, CheckpointStore.Claim claim,
                     Layout rescaledFrom) {
        this.plan = plan;
        this.rescaledFrom = rescaledFrom;
        this.claim = claim;
        this.config = config;
        this.key = key;
        this.self = self;
        this.peers = peers;
        this.registry = registry;
        this.startNanos = startNanos;
        this.restoredId = restored.map(CheckpointStore.Restored::id).orElse(0L);
        this.saved = saved;
        this.match = match;
    }

    /**
     * Claims this peer's share of the job's checkpoints (refused while another run holds it), then
     * finds what to resume from; the claim lasts until {@link #release}.
     */
    public static Recovery prepare(PhysicalPlan plan, JobConfig config, int self, int peers, MeterRegistry registry) {
        long start = System.nanoTime();
        KeyTypeCheck.requireStableKeys(plan, config);
        OperatorIds ids = OperatorIds.of(plan);
        String key = keyOf(config, peers);
        CheckpointStore store = config.checkpointStore();
        CheckpointStore.Claim claim;
        try {
            claim = store.claim(key, self, peers);
        } catch (IOException e) {
            throw new IllegalStateException("job '" + config.name() + "': cannot lock its checkpoints in " + store.describe()
                    + " for peer " + self + ": " + e, e);
        }
        try {
            Optional<CheckpointStore.Restored> restored;
            StateMatch match = null;
            SavedState saved = null;
            Layout rescaled = null;
            try {
                restored = store.newestComplete(key, self, peers);
                Optional<Layout> other = newestOtherLayout(store, config, key, restored.map(CheckpointStore.Restored::id).orElse(0L));
                SavedState all = null;
                if (other.isPresent()) {
                    rescaled = other.get();
                    requireRescalable(config, rescaled, store);
                    requireNotRunning(store, config, rescaled, self);
                    all = allPeers(store, config, rescaled);
                    restored = Optional.of(new CheckpointStore.Restored(rescaled.newest(), Map.of()));
                } else if (restored.isPresent()) {
                    all = SavedState.of(restored.get().chain());
                }
                store.discardNewerThan(key, restored.map(CheckpointStore.Restored::id).orElse(0L), self);
                if (restored.isPresent()) {
                    String where = "job '" + config.name() + "': checkpoint " + restored.get().id() + " in " + store.describe();
                    match = StateMatch.of(ids.stateful(), all.descriptors(), where);
                    if (match.nothingMatches()) {
                        refuseOrDiscardAnother(store, config, key, self, where, all, ids, match);
                        restored = Optional.empty();
                        match = null;
                        FreshStart.refuseOrReplaceEarlierOutput(plan, config); // started afresh: nothing of the other pipeline stays
                    } else {
                        saved = all.only(match.resumed());
                    }
                }
                if (restored.isEmpty()) {
                    refuseOrDiscardOthers(store, config, key, self);
                    if (!claim.earlierRun()) {
                        FreshStart.refuseOrReplaceEarlierOutput(plan, config);
                    }
                }
            } catch (IOException e) {
                throw new IllegalStateException("job '" + config.name() + "': cannot read (or, starting afresh, discard) the checkpoints in "
                        + store.describe() + ": " + e, e);
            }
            return new Recovery(plan, config, key, self, peers, registry, start, restored, match, saved, claim, rescaled);
        } catch (RuntimeException e) {
            claim.close();
            throw e;
        }
    }

    /**
     * The newest checkpoint of this job in the same format under another layout, when it is newer
     * than {@code newestHere} (this layout's newest): a run with other peers or workers resumes
     * from it, each operator taking its share ({@link air.runtime.operator.Rescale}).
     */
    private static Optional<Layout> newestOtherLayout(CheckpointStore store, JobConfig config, String key, long newestHere)
            throws IOException {
        String prefix = layoutPrefix(config.name());
        Layout newest = null;
        for (String job : store.jobs()) {
            if (job.equals(key) || !job.startsWith(prefix)) {
                continue;
            }
            String[] layout = job.substring(prefix.length()).split("x");
            if (layout.length != 2 || !layout[0].matches("[0-9]{1,6}") || !layout[1].matches("[0-9]{1,6}")) {
                continue;
            }
            int peers = Integer.parseInt(layout[0]);
            long written = store.newestWrittenByAll(job, peers);
            if (written <= newestHere || newest != null && written <= newest.newest()) {
                continue; // nothing newer there: not read at all
            }
            Optional<CheckpointStore.Restored> there = store.newestComplete(job, 0, peers);
            if (there.isPresent() && there.get().id() > newestHere && (newest == null || there.get().id() > newest.newest())) {
                newest = new Layout(job, peers, Integer.parseInt(layout[1]), there.get().id(), there.get());
            }
        }
        return Optional.ofNullable(newest);
    }

    /** Every peer's parts of the checkpoint {@code layout} last completed: a restore onto another layout reads them all. */
    private static SavedState allPeers(CheckpointStore store, JobConfig config, Layout layout) throws IOException {
        List<SavedState> peers = new ArrayList<>(layout.peers());
        for (int p = 0; p < layout.peers(); p++) {
            Optional<CheckpointStore.Restored> part = p == 0 ? Optional.of(layout.first()) : store.newestComplete(layout.key(), p,
                    layout.peers());
            if (part.isEmpty() || part.get().id() != layout.newest()) {
                String found = part.isEmpty() ? "no checkpoint of peer " + p : "checkpoint " + part.get().id() + " as peer " + p + "'s newest";
                throw new CheckpointMismatchException("job '" + config.name() + "': resuming checkpoint " + layout.newest() + " of "
                        + layout + " onto another layout needs every peer's parts of it, but " + store.describe() + " holds " + found
                        + ". Resume on the layout that wrote it, or from a directory that every peer wrote to");
            }
            peers.add(SavedState.of(part.get().chain()));
        }
        return SavedState.union(peers);
    }

    /**
     * Refuses to resume the checkpoints of a layout a live run still writes (rank 0 asks, so that
     * the peers of this run, all reading them, do not take each other's probes for such a run).
     */
    private static void requireNotRunning(CheckpointStore store, JobConfig config, Layout layout, int self) throws IOException {
        String live = self == 0 ? store.liveRun(layout.key()) : null;
        if (live != null) {
            throw new CheckpointMismatchException("job '" + config.name() + "': the newest checkpoint in " + store.describe() + " is "
                    + layout.newest() + " of " + layout + ", which a live run still writes (" + live + "): stop it (or let it stop "
                    + "with a savepoint) before resuming it on another layout");
        }
    }

    /** Refuses, before anything runs, a restore onto another layout that cannot work. */
    private static void requireRescalable(JobConfig config, Layout layout, CheckpointStore store) {
        if (config.progress() == Progress.HEWMELD) {
            throw new CheckpointMismatchException("job '" + config.name() + "': checkpoint " + layout.newest() + " in " + store.describe()
                    + " was written by " + layout + "; resuming it onto another layout needs watermark progress: hew-meld credit is "
                    + "owed per producer and cannot be split. Resume with " + layout + ", or run with watermarks");
        }
    }

    /**
     * The job passed every check on every peer and its tasklets start: later runs count this one as
     * an earlier run of the job (a restart replaces what it wrote before its first checkpoint).
     */
    void started() {
        try {
            claim.started();
        } catch (IOException e) {
            LOG.warn("job '{}': cannot record its start in {} ({}): a restart before its first checkpoint will refuse to replace "
                    + "its part files, as it would an earlier run's", config.name(), config.checkpointStore().describe(), e.toString());
        }
    }

    /** Ends this run's claim on its checkpoints (the job ended on this peer); once is enough, more do nothing. */
    void release() {
        claim.close();
    }

    /**
     * The layout of operator and edge state in a checkpoint part. Bump it whenever what a tasklet
     * writes changes: it is part of the checkpoint key, so a checkpoint of another format is never
     * read (and the run says so, see {@link #logStart}). 2: inbound edges (ends, repeat marks,
     * completion strategy) before each operator's state; 3: window operators write their counters
     * before their frames ({@code WindowFrames}); 4: repeat marks of exchange records, and the
     * dataflow's operators (joins, exchanges); 5: keys from the plan's structure (no call sites)
     * and a hash of the raw job name, so that no two job names share a key prefix; 6: each
     * operator's state under its stable id ({@link air.runtime.impl.checkpoint.PartSections}), and
     * a key of the job name and layout only: the pipeline is matched operator by operator; 7: a
     * section holds whole state or changes since the checkpoint before (incremental checkpoints);
     * 8: edge state framed by its length, sources' earlier layouts, and the layout readable in
     * the key ({@code <peers>x<workers>}), so that a run on another layout finds and splits it;
     * 9: frames of one-long aggregations (count, sum, min, max by a long key) packed, each column
     * in the fewest bytes that hold it ({@code ShuffleItemCodec.packing}).
     */
    static final int CHECKPOINT_FORMAT = 9;

    /**
     * The checkpoint key: the job's name, the checkpoint format and what a restore cannot change
     * today: the peers and the workers (how state is split into instances). Not the pipeline: its
     * operators are matched by id on restore ({@link StateMatch}), so an edited pipeline finds its
     * checkpoints, resumes what still matches and is told about the rest.
     */
    static String keyOf(JobConfig config, int peers) {
        return layoutPrefix(config.name()) + peers + "x" + config.workers();
    }

    /** What every checkpoint key of job {@code name} in this format begins with; the layout ({@code <peers>x<workers>}) follows. */
    static String layoutPrefix(String name) {
        return namePrefix(name) + digest("checkpoint-format=" + CHECKPOINT_FORMAT) + "-";
    }

    /**
     * What every checkpoint key of job {@code name} begins with: the name made safe for a file
     * name, and a short hash of the name as given, so that "orders eu" and "orders_eu" never
     * share checkpoints, refusals or a fresh start.
     */
    static String namePrefix(String name) {
        return name.replaceAll("[^A-Za-z0-9_.-]", "_") + "-" + digest("job-name=" + name).substring(0, 6) + "-";
    }

    private static String digest(String text) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Where {@link air.runtime.JobEvent.Recovering} and {@link air.runtime.JobEvent.RunningAgain} go. */
    void events(JobEvents publisher) {
        events = publisher;
    }

    long restoredId() {
        return restoredId;
    }

    /** The newest checkpoint of this job any peer began ({@link CheckpointStore#newestBegun}). */
    long newestBegun() throws IOException {
        return peers == 1 ? 0 : config.checkpointStore().newestBegun(key);
    }

    /** Whether every peer wrote checkpoint {@code id} (this one has): its two-phase-commit sinks may commit it. */
    boolean writtenByAll(long id) throws IOException {
        return peers == 1 || config.checkpointStore().writtenByAll(key, id, peers);
    }

    /** A stop with a savepoint for this run, which stops the job by {@code stop} once every peer wrote it. */
    SavepointStop savepoints(CheckpointCoordinator coordinator, LongConsumer stop) {
        return new SavepointStop(coordinator, config.checkpointStore(), key, config.name(), peers, config.checkpointIntervalMs(), stop);
    }

    CheckpointCoordinator coordinator(Consumer<Throwable> onFailure) {
        CheckpointStore store = config.checkpointStore();
        CheckpointCoordinator c = new CheckpointCoordinator(store, key, config.name(), self, peers, restoredId,
                store.keepsChains() ? config.fullCheckpointEvery() : 1, registry, onFailure);
        c.reportSlowWritesAfter(config.stallReportMs());
        return c;
    }

    /**
     * Each tasklet's link to checkpoints; in a resumed run with the saved states of its operators
     * that match (found by id and global instance: a tasklet of a changed pipeline may have none).
     */
    Function<String, Checkpointing> forTasklets(CheckpointCoordinator coordinator, SavepointStop savepoints) {
        long interval = config.checkpointIntervalMs() * 1_000_000L;
        return part -> {
            if (saved != null) {
                restoring.incrementAndGet();
            }
            int instances = rescaledFrom == null ? 0 : peers * plan.vertices().get(PartNames.vertexOf(part)).parallelism();
            return new Checkpointing(coordinator, interval, restoredId, saved, PartNames.instanceOf(part), instances, savepoints,
                    this::restored);
        };
    }

    private void restored() {
        if (restoring.decrementAndGet() == 0) {
            long nanos = System.nanoTime() - startNanos;
            Timer.builder("air.recovery.duration").tag("job", config.name()).register(registry).record(nanos, TimeUnit.NANOSECONDS);
            Counter.builder("air.recoveries").tag("job", config.name()).register(registry).increment();
            LOG.info("job '{}' RUNNING again on peer {}: every tasklet back at checkpoint {} after {} ms", config.name(), self, restoredId,
                    nanos / 1_000_000);
            events.publish(new JobEvent.RunningAgain(config.name(), self, JobEvents.now(), self,
                    restoredId, nanos / 1_000_000));
        }
    }

    /** Whether tasklets are still restoring their state. */
    boolean recovering() {
        return restoring.get() > 0;
    }

    private List<String> othersOfThisJob(CheckpointStore store) {
        try {
            return othersOf(store.jobs(), config.name(), key);
        } catch (IOException e) {
            return List.of();
        }
    }

    /**
     * The newest checkpoint under this run's key has no state this pipeline's operators can take:
     * another pipeline was run under this job name. Refused, naming the job, the directory and the
     * ids on both sides, unless starting afresh was asked for ({@link JobConfig#startAfresh}); then
     * every peer discards its own parts of the job's checkpoints (none stays complete, so none is
     * resumed later) and the run starts from scratch. Never a silent fresh start.
     */
    private static void refuseOrDiscardAnother(CheckpointStore store, JobConfig config, String key, int self, String where,
                                               SavedState saved, OperatorIds ids, StateMatch match) throws IOException {
        List<String> mine = ids.stateful().stream().map(OperatorId::id).toList();
        if (!config.startAfresh()) {
            List<String> changed = match.changed();
            throw new CheckpointMismatchException(where + " is of another pipeline under this job name: none of its operators' state "
                    + "fits this pipeline (saved: " + List.copyOf(saved.descriptors().keySet()) + "; this pipeline: " + mine + ")"
                    + (changed.isEmpty() ? "" : "; where the ids agree, the operators do not: " + String.join("; ",
                            changed.subList(0, Math.min(3, changed.size()))) + (changed.size() > 3 ? "; and " + (changed.size() - 3)
                            + " more" : ""))
                    + ". Nothing ran and nothing was deleted. Run the pipeline that wrote it to resume, start afresh on purpose "
                    + "(JobConfig.startAfresh(true), './air ... --fresh'), or use another directory");
        }
        store.discardNewerThan(key, 0, self);
        LOG.warn("{} is of another pipeline under this job name (saved: {}; this pipeline: {}): starting afresh as asked, discarding "
                + "it", where, List.copyOf(saved.descriptors().keySet()), mine);
    }

    /**
     * Nothing to resume under this run's key: checkpoints of the same job name under another key
     * (another pipeline, layout or format) are refused — the job does not start, saying why — or,
     * with {@link JobConfig#startAfresh}, discarded. Never a silent fresh start beside them.
     */
    private static void refuseOrDiscardOthers(CheckpointStore store, JobConfig config, String key, int self) throws IOException {
        List<String> others = othersOf(store.jobs(), config.name(), key);
        if (others.isEmpty()) {
            return;
        }
        if (!config.startAfresh()) {
            throw new CheckpointMismatchException("job '" + config.name() + "': " + store.describe() + " holds checkpoints of this job name "
                    + others + " that this run cannot resume from: none of them holds a complete checkpoint of this checkpoint "
                    + "format, or an older AIR wrote them in another one (this run's key is " + key + ", format "
                    + CHECKPOINT_FORMAT + "). Run with the layout (or AIR) that wrote them to resume, or start afresh on purpose "
                    + "(JobConfig.startAfresh(true), './air ... --fresh'), or use another directory");
        }
        if (self == 0) {
            // rank 0 only: on a shared directory the others would race it, and a peer built differently must not delete anyone's
            for (String other : others) {
                store.discard(other);
            }
        }
        LOG.warn("job '{}': starting afresh as asked: discarding the checkpoints {} in {}", config.name(), others, store.describe());
    }

    /** The checkpoint keys among {@code jobs} that name job {@code name} but not this run's {@code key}. */
    static List<String> othersOf(List<String> jobs, String name, String key) {
        String prefix = namePrefix(name);
        String legacy = name.replaceAll("[^A-Za-z0-9_.-]", "_") + "-"; // format 4 and before: the name alone, then the digest
        return jobs.stream().filter(j -> !j.equals(key)
                && (j.startsWith(prefix) && j.substring(prefix.length()).matches("[0-9a-f]{12}(-[0-9]{1,6}x[0-9]{1,6})?")
                    || j.startsWith(legacy) && j.substring(legacy.length()).matches("[0-9a-f]{12}"))).toList();
    }

    void logStart() {
        CheckpointStore store = config.checkpointStore();
        if (saved != null) {
            if (rescaledFrom != null) {
                LOG.info("job '{}' RECOVERING on peer {}: resuming checkpoint {} of {} in {} onto {} peer(s) x {} worker(s): each "
                        + "operator takes its share", config.name(), self, restoredId, rescaledFrom, store.describe(), peers,
                        config.workers());
            } else {
                LOG.info("job '{}' RECOVERING on peer {}: resuming from checkpoint {} in {}", config.name(), self, restoredId,
                        store.describe());
            }
            if (!match.startEmpty().isEmpty()) {
                LOG.info("job '{}': the pipeline changed since checkpoint {}; these operators start empty: {}", config.name(), restoredId,
                        String.join(", ", match.startEmpty()));
            }
            if (!match.dropped().isEmpty()) {
                LOG.warn("job '{}': checkpoint {} in {} holds state that this pipeline does not resume, dropped: {}", config.name(),
                        restoredId, store.describe(), String.join(", ", match.dropped()));
            }
            events.publish(new JobEvent.Recovering(config.name(), self, JobEvents.now(), restoredId));
        } else {
            LOG.info("job '{}': checkpoints every {} ms to {} (nothing to resume from)", config.name(), config.checkpointIntervalMs(),
                    store.describe());
            List<String> others = othersOfThisJob(store);
            if (!others.isEmpty()) {
                LOG.warn("job '{}': {} holds checkpoints of this job under {}, but of another layout or checkpoint format "
                        + "(this run's is {}, format {}): not resuming from them", config.name(), store.describe(), others, key,
                        CHECKPOINT_FORMAT);
            }
        }
    }
}
