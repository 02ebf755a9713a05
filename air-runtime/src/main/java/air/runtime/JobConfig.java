package air.runtime;

import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Objects;

/**
 * How a job runs: workers per peer, batch and queue sizes, the meter registry. Immutable; every
 * setter validates its argument and returns a copy.
 */
public final class JobConfig {

    private final String name;
    private final int workers;
    private final int batchSize;
    private final int queueCapacity;
    private final boolean specializeOperators;
    private final MeterRegistry meterRegistry;
    private final Routing routing;
    private final Progress progress;
    private final long watermarkIntervalMs;
    private final long stallReportMs;

    private JobConfig(String name, int workers, int batchSize, int queueCapacity, boolean specializeOperators,
                      MeterRegistry meterRegistry, Routing routing, Progress progress, long watermarkIntervalMs,
                      long stallReportMs) {
        this.name = name;
        this.workers = workers;
        this.batchSize = batchSize;
        this.queueCapacity = queueCapacity;
        this.specializeOperators = specializeOperators;
        this.meterRegistry = meterRegistry;
        this.routing = routing;
        this.progress = progress;
        this.watermarkIntervalMs = watermarkIntervalMs;
        this.stallReportMs = stallReportMs;
    }

    /** Defaults: as many workers as available processors, batches of 1024, queues of 64 batches. */
    public static JobConfig defaults() {
        return new JobConfig("air-job", Runtime.getRuntime().availableProcessors(), 1024, 64, true, null, Routing.KEY, Progress.WATERMARK, 200, 10_000);
    }

    public JobConfig name(String jobName) {
        Objects.requireNonNull(jobName, "JobConfig.name(jobName): jobName is null");
        if (jobName.isBlank()) {
            throw new IllegalArgumentException("JobConfig.name(jobName): jobName is blank");
        }
        return new JobConfig(jobName, workers, batchSize, queueCapacity, specializeOperators, meterRegistry, routing, progress, watermarkIntervalMs, stallReportMs);
    }

    /** Workers (parallel instances of every vertex) on this peer. */
    public JobConfig workers(int count) {
        if (count < 1 || count > 4096) {
            throw new IllegalArgumentException("JobConfig.workers(count): count must be in [1, 4096], was " + count);
        }
        return new JobConfig(name, count, batchSize, queueCapacity, specializeOperators, meterRegistry, routing, progress, watermarkIntervalMs, stallReportMs);
    }

    /** Records a source emits per batch: progress and cancellation are checked once per batch. */
    public JobConfig batchSize(int records) {
        if (records < 1 || records > 1 << 20) {
            throw new IllegalArgumentException("JobConfig.batchSize(records): records must be in [1, 1048576], was " + records);
        }
        return new JobConfig(name, workers, records, queueCapacity, specializeOperators, meterRegistry, routing, progress, watermarkIntervalMs, stallReportMs);
    }

    /** Batches an inbox holds before its producers park. */
    public JobConfig queueCapacity(int batches) {
        if (batches < 2 || batches > 1 << 16) {
            throw new IllegalArgumentException("JobConfig.queueCapacity(batches): batches must be in [2, 65536], was " + batches);
        }
        return new JobConfig(name, workers, batchSize, batches, specializeOperators, meterRegistry, routing, progress, watermarkIntervalMs, stallReportMs);
    }

    /**
     * Whether each job gets its own copy of the operator classes, so that the JIT sees one
     * monomorphic fused loop per pipeline even when many pipelines share a JVM (default on).
     */
    public JobConfig specializeOperators(boolean enabled) {
        return new JobConfig(name, workers, batchSize, queueCapacity, enabled, meterRegistry, routing, progress, watermarkIntervalMs, stallReportMs);
    }

    /** How keyed window partials are routed to final-aggregate instances (default KEY). */
    public JobConfig routing(Routing windowRouting) {
        Objects.requireNonNull(windowRouting, "JobConfig.routing(windowRouting): windowRouting is null");
        return new JobConfig(name, workers, batchSize, queueCapacity, specializeOperators, meterRegistry, windowRouting, progress, watermarkIntervalMs, stallReportMs);
    }

    public Routing routing() {
        return routing;
    }

    /** How window completion is tracked (default WATERMARK). */
    public JobConfig progress(Progress tracking) {
        Objects.requireNonNull(tracking, "JobConfig.progress(tracking): tracking is null");
        return new JobConfig(name, workers, batchSize, queueCapacity, specializeOperators, meterRegistry, routing, tracking, watermarkIntervalMs, stallReportMs);
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
        return new JobConfig(name, workers, batchSize, queueCapacity, specializeOperators, meterRegistry, routing, progress, intervalMs, stallReportMs);
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
        return new JobConfig(name, workers, batchSize, queueCapacity, specializeOperators, meterRegistry, routing, progress,
                watermarkIntervalMs, afterMs);
    }

    public long stallReportMs() {
        return stallReportMs;
    }

    /** The registry that receives the job's {@code air.*} meters; a private one when unset. */
    public JobConfig meterRegistry(MeterRegistry registry) {
        Objects.requireNonNull(registry, "JobConfig.meterRegistry(registry): registry is null");
        return new JobConfig(name, workers, batchSize, queueCapacity, specializeOperators, registry, routing, progress, watermarkIntervalMs, stallReportMs);
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

    /** The configured registry, or a new private one. */
    public MeterRegistry meterRegistryOrDefault() {
        return meterRegistry != null ? meterRegistry : new SimpleMeterRegistry();
    }

    @Override
    public String toString() {
        return "JobConfig{name=" + name + ", workers=" + workers + ", batchSize=" + batchSize
                + ", queueCapacity=" + queueCapacity + ", specializeOperators=" + specializeOperators + ", routing=" + routing + ", progress=" + progress + ", watermarkIntervalMs=" + watermarkIntervalMs + "}";
    }
}
