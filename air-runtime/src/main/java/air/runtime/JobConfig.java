package air.runtime;

import air.runtime.api.BadRecordPolicy;
import air.runtime.api.CheckpointStore;
import air.runtime.api.TimeSource;
import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How a job runs: workers per peer, batch and queue sizes, the meter registry. Immutable; every
 * setter validates its argument and returns a copy.
 */
public final class JobConfig {

    private String name;
    private int workers;
    private int batchSize;
    private int queueCapacity;
    private boolean specializeOperators;
    private MeterRegistry meterRegistry;
    private Routing routing;
    private Progress progress;
    private long watermarkIntervalMs;
    private long stallReportMs;
    private long finishTimeoutMs;
    private long idleTimeoutMs;
    private CheckpointStore checkpointStore;
    private long checkpointIntervalMs;
    private boolean startAfresh;
    private int fullCheckpointEvery = 8;
    private long alignmentBufferBytes = 64L << 20;
    private Path alignmentSpillDirectory;
    private long alignmentSpillCapBytes = 8L << 30;
    private int replicas;
    private long replicationIntervalMs;
    private Cluster cluster;
    private List<JobListener> listeners = List.of();
    private TimeSource timeSource = TimeSource.SYSTEM;
    private BadRecordPolicy badRecordPolicy = BadRecordPolicy.fail();

    private JobConfig() {
    }

    /** A copy to change one setting in; callers only ever see finished copies, so configs stay immutable. */
    private JobConfig copy() {
        JobConfig c = new JobConfig();
        c.name = name;
        c.workers = workers;
        c.batchSize = batchSize;
        c.queueCapacity = queueCapacity;
        c.specializeOperators = specializeOperators;
        c.meterRegistry = meterRegistry;
        c.routing = routing;
        c.progress = progress;
        c.watermarkIntervalMs = watermarkIntervalMs;
        c.stallReportMs = stallReportMs;
        c.finishTimeoutMs = finishTimeoutMs;
        c.idleTimeoutMs = idleTimeoutMs;
        c.checkpointStore = checkpointStore;
        c.checkpointIntervalMs = checkpointIntervalMs;
        c.startAfresh = startAfresh;
        c.fullCheckpointEvery = fullCheckpointEvery;
        c.alignmentBufferBytes = alignmentBufferBytes;
        c.alignmentSpillDirectory = alignmentSpillDirectory;
        c.alignmentSpillCapBytes = alignmentSpillCapBytes;
        c.replicas = replicas;
        c.replicationIntervalMs = replicationIntervalMs;
        c.cluster = cluster;
        c.listeners = listeners;
        c.timeSource = timeSource;
        c.badRecordPolicy = badRecordPolicy;
        return c;
    }

    /** Defaults: as many workers as available processors, batches of 1024, queues of 64 batches. */
    public static JobConfig defaults() {
        JobConfig c = new JobConfig();
        c.name = "air-job";
        c.workers = Runtime.getRuntime().availableProcessors();
        c.batchSize = 1024;
        c.queueCapacity = 64;
        c.specializeOperators = true;
        c.routing = Routing.KEY;
        c.progress = Progress.WATERMARK;
        c.watermarkIntervalMs = 200;
        c.stallReportMs = 10_000;
        c.idleTimeoutMs = 1_000;
        return c;
    }

    public JobConfig name(String jobName) {
        Objects.requireNonNull(jobName, "JobConfig.name(jobName): jobName is null");
        if (jobName.isBlank()) {
            throw new IllegalArgumentException("JobConfig.name(jobName): jobName is blank");
        }
        JobConfig c = copy();
        c.name = jobName;
        return c;
    }

    /** Workers (parallel instances of every vertex) on this peer. */
    public JobConfig workers(int count) {
        if (count < 1 || count > 4096) {
            throw new IllegalArgumentException("JobConfig.workers(count): count must be in [1, 4096], was " + count);
        }
        JobConfig c = copy();
        c.workers = count;
        return c;
    }

    /** Records a source emits per batch: progress and cancellation are checked once per batch. */
    public JobConfig batchSize(int records) {
        if (records < 1 || records > 1 << 20) {
            throw new IllegalArgumentException("JobConfig.batchSize(records): records must be in [1, 1048576], was " + records);
        }
        JobConfig c = copy();
        c.batchSize = records;
        return c;
    }

    /** Batches an inbox holds before its producers park. */
    public JobConfig queueCapacity(int batches) {
        if (batches < 2 || batches > 1 << 16) {
            throw new IllegalArgumentException("JobConfig.queueCapacity(batches): batches must be in [2, 65536], was " + batches);
        }
        JobConfig c = copy();
        c.queueCapacity = batches;
        return c;
    }

    /**
     * Whether each job gets its own copy of the operator classes, so that the JIT sees one
     * monomorphic fused loop per pipeline even when many pipelines share a JVM (default on).
     */
    public JobConfig specializeOperators(boolean enabled) {
        JobConfig c = copy();
        c.specializeOperators = enabled;
        return c;
    }

    /** How keyed window partials are routed to final-aggregate instances (default KEY). */
    public JobConfig routing(Routing windowRouting) {
        Objects.requireNonNull(windowRouting, "JobConfig.routing(windowRouting): windowRouting is null");
        JobConfig c = copy();
        c.routing = windowRouting;
        return c;
    }

    public Routing routing() {
        return routing;
    }

    /** How window completion is tracked (default WATERMARK). */
    public JobConfig progress(Progress tracking) {
        Objects.requireNonNull(tracking, "JobConfig.progress(tracking): tracking is null");
        JobConfig c = copy();
        c.progress = tracking;
        return c;
    }

    public Progress progress() {
        return progress;
    }

    /**
     * How often sources publish a low watermark under WATERMARK progress (default 200 ms, as
     * Flink); 0 publishes after every batch. Hew-meld needs no period: it releases per batch.
     */
    public JobConfig watermarkIntervalMs(long intervalMs) {
        if (intervalMs < 0) {
            throw new IllegalArgumentException("JobConfig.watermarkIntervalMs(intervalMs): must be >= 0, was " + intervalMs);
        }
        JobConfig c = copy();
        c.watermarkIntervalMs = intervalMs;
        return c;
    }

    public long watermarkIntervalMs() {
        return watermarkIntervalMs;
    }

    /**
     * How long a window may stay open before the engine logs which upstream instances hold it back
     * ("why is my window not firing?"); 0 turns the report off. Default 10 s.
     */
    public JobConfig stallReportMs(long afterMs) {
        if (afterMs < 0) {
            throw new IllegalArgumentException("JobConfig.stallReportMs(afterMs): must be >= 0, was " + afterMs);
        }
        JobConfig c = copy();
        c.stallReportMs = afterMs;
        return c;
    }

    public long stallReportMs() {
        return stallReportMs;
    }

    /**
     * Cluster mode: how long a peer whose part of the job is done (or stopped at a savepoint) waits
     * for the others before the job fails, naming the peers that never arrived. 0 (the default):
     * as long as they are members — a peer alive but stuck keeps heartbeating, and is then only
     * named in a WARN every {@link #stallReportMs} (30 s when that is off). Set it when parts should
     * end close together; skewed inputs can legitimately keep one peer busy long after another.
     */
    public JobConfig finishTimeoutMs(long timeoutMs) {
        if (timeoutMs < 0) {
            throw new IllegalArgumentException("JobConfig.finishTimeoutMs(timeoutMs): must be >= 0, was " + timeoutMs);
        }
        JobConfig c = copy();
        c.finishTimeoutMs = timeoutMs;
        return c;
    }

    public long finishTimeoutMs() {
        return finishTimeoutMs;
    }

    /**
     * After how long without records a source instance counts as idle (default 1 s; 0: never), so
     * that it does not hold windows back. While idle, its event time is taken to advance with the
     * wall clock from the newest timestamp seen by any instance of the same {@code withTimestamps}
     * in this JVM; it releases hew-meld credit (or publishes a watermark) up to that, less the
     * allowed disorder. While no instance in this JVM has seen a timestamp, it keeps holding.
     * Records it emits later behind what it released are late (the late-record policy applies).
     * A source that reads several splits in turn (files, Kafka partitions) keeps event time per
     * split, and the rule applies per split too: a split read and found empty when this long has
     * passed since its last record stops holding its instance's event time until its next record.
     */
    public JobConfig idleTimeoutMs(long timeoutMs) {
        if (timeoutMs < 0) {
            throw new IllegalArgumentException("JobConfig.idleTimeoutMs(timeoutMs): must be >= 0, was " + timeoutMs);
        }
        JobConfig c = copy();
        c.idleTimeoutMs = timeoutMs;
        return c;
    }

    public long idleTimeoutMs() {
        return idleTimeoutMs;
    }

    /**
     * The processing-time clock the job's semantics follow: when a source instance counts as idle
     * ({@link #idleTimeoutMs}) and how far its estimated event time has moved since, and when
     * processing-time timers fire. The machine's clock by default; the test kit's manual clock
     * makes those steps happen exactly when a test says. The engine's own pacing (watermark
     * publication, checkpoints, heartbeats) always follows the machine's clock.
     */
    public JobConfig timeSource(TimeSource clock) {
        JobConfig c = copy();
        c.timeSource = Objects.requireNonNull(clock, "JobConfig.timeSource(clock): clock is null");
        return c;
    }

    public TimeSource timeSource() {
        return timeSource;
    }

    /**
     * Checkpointing and rollback: every {@code intervalMs} each source captures its position and
     * the state downstream of it follows, aligned on barriers; each peer writes its part to
     * {@code store}. A job started with a store that holds a complete checkpoint of the same
     * pipeline resumes from the newest one, exactly once: every sink must be a
     * {@link air.runtime.api.CheckpointedSinkWriter} and every aggregation needs an accumulator
     * codec. Null turns checkpoints off (the default).
     */
    public JobConfig checkpoints(CheckpointStore store, long intervalMs) {
        if (store != null && intervalMs < 1) {
            throw new IllegalArgumentException("JobConfig.checkpoints(store, intervalMs): intervalMs must be >= 1, was " + intervalMs);
        }
        JobConfig c = copy();
        c.checkpointStore = store;
        c.checkpointIntervalMs = store == null ? 0 : intervalMs;
        return c;
    }

    /**
     * Replication: every {@code intervalMs} each peer's state (source positions, window frames,
     * progress, sink state), aligned on barriers as for checkpoints, is copied into the memory of
     * its next {@code replicas} live peers. When a peer dies, the next live peer takes over its
     * share from that copy and the others send it what they sent the dead peer since; nobody rolls
     * back, and only the dead peer's sources replay, from their replicated positions. Needs cluster
     * mode over the TCP transport ({@code AIR_TRANSPORT=tcp}; {@code ./air ... --replicas 1} sets
     * it), more peers than replicas, exactly-once sinks and accumulator codecs, as checkpoints do.
     * Cannot be combined with {@link #checkpoints}. 0 turns it off (the default).
     */
    public JobConfig replication(int replicas, long intervalMs) {
        if (replicas < 0) {
            throw new IllegalArgumentException("JobConfig.replication(replicas, intervalMs): replicas must be >= 0, was " + replicas);
        }
        if (replicas > 0 && intervalMs < 1) {
            throw new IllegalArgumentException("JobConfig.replication(replicas, intervalMs): intervalMs must be >= 1, was " + intervalMs);
        }
        JobConfig c = copy();
        c.replicas = replicas;
        c.replicationIntervalMs = replicas == 0 ? 0 : intervalMs;
        return c;
    }

    /** How many other peers hold a copy of each peer's state; 0 without replication. */
    public int replicas() {
        return replicas;
    }

    public long replicationIntervalMs() {
        return replicationIntervalMs;
    }

    public CheckpointStore checkpointStore() {
        return checkpointStore;
    }

    /**
     * With checkpoints: what to do when the store holds checkpoints of this job name that this run
     * cannot resume from (another pipeline, none of whose operators' state fits this one; a named
     * operator whose state changed shape; other workers or peers; another checkpoint format). By
     * default the job refuses to start, saying so, rather than silently starting from scratch;
     * {@code true} discards them and starts afresh ({@code ./air ... --fresh}). An edited pipeline
     * needs neither: state is matched operator by operator by stable id (the {@code named(...)}
     * label, else the plan's structure, never a call site), so a moved line resumes everything and
     * an added or removed operator starts empty or is dropped, with a log line saying which.
     */
    public JobConfig startAfresh(boolean afresh) {
        JobConfig c = copy();
        c.startAfresh = afresh;
        return c;
    }

    public boolean startAfresh() {
        return startAfresh;
    }

    public long checkpointIntervalMs() {
        return checkpointIntervalMs;
    }

    /**
     * Incremental checkpoints and replica copies: one in every {@code n} holds every operator's
     * whole state, the others only what changed since the one before (window frames: the keys
     * updated since; sinks that can tell: what they wrote since), so that large state costs in
     * proportion to how fast it changes, not to its size. A restore reads the last whole one and
     * the changes after it; a larger {@code n} writes less and restores from more files. 1 makes
     * every checkpoint whole. Default 8. Stores that keep whole checkpoints only (a custom
     * {@link CheckpointStore} that does not {@link CheckpointStore#keepsChains}) get whole ones.
     */
    public JobConfig fullCheckpointEvery(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("JobConfig.fullCheckpointEvery(n): n must be >= 1, was " + n);
        }
        JobConfig c = copy();
        c.fullCheckpointEvery = n;
        return c;
    }

    /** One checkpoint (or replica copy) in how many holds whole state; 1: all. */
    public int fullCheckpointEvery() {
        return fullCheckpointEvery;
    }

    /**
     * With checkpoints or replication: how many bytes (estimated: the size of their encoding) of
     * items each operator instance keeps in memory while it aligns a barrier, i.e. items of the
     * producers whose barrier is in, waiting for the others'. Past it the items go to a spill file
     * ({@link #alignmentSpill}) and are read back in order once the barrier is aligned, so a slow
     * producer costs disk, not heap; results are the same. 0 spills every held item. Default 64 MiB.
     */
    public JobConfig alignmentBufferBytes(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("JobConfig.alignmentBufferBytes(bytes): bytes must be >= 0, was " + bytes);
        }
        JobConfig c = copy();
        c.alignmentBufferBytes = bytes;
        return c;
    }

    /**
     * Where barrier alignment spills what is past {@link #alignmentBufferBytes} (default
     * {@code java.io.tmpdir}: a WARN says when that is a file system in memory, tmpfs), and how many
     * bytes one alignment may spill (default 8 GiB): past the cap the instance fails, naming the
     * producers whose barrier it still waits for, rather than fill the disk.
     */
    public JobConfig alignmentSpill(Path directory, long capBytes) {
        Objects.requireNonNull(directory, "JobConfig.alignmentSpill(directory, capBytes): directory is null");
        if (capBytes < 0) {
            throw new IllegalArgumentException("JobConfig.alignmentSpill(directory, capBytes): capBytes must be >= 0, was " + capBytes);
        }
        JobConfig c = copy();
        c.alignmentSpillDirectory = directory;
        c.alignmentSpillCapBytes = capBytes;
        return c;
    }

    /** Where alignment spills; null: {@code java.io.tmpdir}. */
    public Path alignmentSpillDirectory() {
        return alignmentSpillDirectory;
    }

    /** How many bytes one barrier alignment may spill. */
    public long alignmentSpillCapBytes() {
        return alignmentSpillCapBytes;
    }

    /** The memory bound of an instance's barrier alignment, in estimated bytes. */
    public long alignmentBufferBytes() {
        return alignmentBufferBytes;
    }

    /**
     * What happens, by default, to a record a user function throws on: the function of a
     * {@code map}, {@code filter}, {@code flatMap}, {@code lookup}, {@code withTimestamps} or keyed
     * {@code process} (and {@code mapStateful}) stage, or a {@code map} or {@code lookup} that
     * returns null. {@link BadRecordPolicy#fail()} (the default) fails the job, naming the stage and
     * the record; {@link BadRecordPolicy#skip()} drops the record, counted in {@code air.records.bad}
     * and logged; {@link BadRecordPolicy#deadLetter} also writes it, as a
     * {@link air.runtime.api.DeadLetter}, to a sink of its own (exactly-once under checkpoints or
     * replicas, as every sink). A stage's own {@code onBadRecord(policy)} overrides this one.
     * Key functions, window aggregations, joins and sinks fail the job whatever the policy; a
     * source's undecodable records follow the source's own policy.
     */
    public JobConfig onBadRecord(BadRecordPolicy policy) {
        Objects.requireNonNull(policy, "JobConfig.onBadRecord(policy): policy is null");
        JobConfig c = copy();
        c.badRecordPolicy = policy;
        return c;
    }

    /** The job's default for records a user function throws on; see {@link #onBadRecord}. */
    public BadRecordPolicy badRecordPolicy() {
        return badRecordPolicy;
    }

    /** The registry that receives the job's {@code air.*} meters; a private one when unset. */
    public JobConfig meterRegistry(MeterRegistry registry) {
        Objects.requireNonNull(registry, "JobConfig.meterRegistry(registry): registry is null");
        JobConfig c = copy();
        c.meterRegistry = registry;
        return c;
    }

    public String name() {
        return name;
    }

    public int workers() {
        return workers;
    }

    public int batchSize() {
        return batchSize;
    }

    public int queueCapacity() {
        return queueCapacity;
    }

    public boolean specializeOperators() {
        return specializeOperators;
    }

    /**
     * Runs the job as this peer's part of a cluster job: every peer submits the same pipeline
     * with the same settings; {@code workers} is per peer. Null: this JVM alone (the default).
     */
    public JobConfig cluster(Cluster peers) {
        JobConfig c = copy();
        c.cluster = peers;
        return c;
    }

    public Cluster cluster() {
        return cluster;
    }

    /**
     * Adds a listener that hears the job's {@link JobEvent}s on every peer it runs on (started,
     * checkpoints written, state replicated, takeovers, recovery, finished or failed): the typed
     * alternative to reading the log. Listeners are called in the order added; one that throws is
     * logged and skipped, the job goes on.
     */
    public JobConfig listener(JobListener listener) {
        Objects.requireNonNull(listener, "JobConfig.listener(listener): listener is null");
        JobConfig c = copy();
        List<JobListener> all = new ArrayList<>(listeners);
        all.add(listener);
        c.listeners = List.copyOf(all);
        return c;
    }

    /** The listeners added with {@link #listener}, in order. */
    public List<JobListener> listeners() {
        return listeners;
    }

    /** The configured registry, or a new private one. */
    public MeterRegistry meterRegistryOrDefault() {
        return meterRegistry != null ? meterRegistry : new SimpleMeterRegistry();
    }

    @Override
    public String toString() {
        return "JobConfig{name=" + name + ", workers=" + workers + ", batchSize=" + batchSize
                + ", queueCapacity=" + queueCapacity + ", specializeOperators=" + specializeOperators + ", routing=" + routing
                + ", progress=" + progress + ", watermarkIntervalMs=" + watermarkIntervalMs + ", idleTimeoutMs=" + idleTimeoutMs
                + (timeSource != TimeSource.SYSTEM ? ", timeSource=" + timeSource : "")
                + (badRecordPolicy instanceof BadRecordPolicy.Fail ? "" : ", onBadRecord=" + badRecordPolicy.label())
                + (checkpointStore != null ? ", checkpoints=" + checkpointStore.describe() + " every " + checkpointIntervalMs + " ms" : "")
                + (checkpointStore != null || replicas > 0 ? ", whole state every " + fullCheckpointEvery + " checkpoint(s)" : "")
                + (replicas > 0 ? ", replicas=" + replicas + " every " + replicationIntervalMs + " ms" : "")
                + (finishTimeoutMs > 0 ? ", finishTimeoutMs=" + finishTimeoutMs : "")
                + (cluster != null ? ", peer=" + cluster.self() + "/" + cluster.peers() : "") + "}";
    }
}
