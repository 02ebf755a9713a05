package air.dsl;

import air.dsl.impl.CallSite;
import air.dsl.impl.Planner;
import air.dsl.impl.StageNode;
import air.runtime.Engine;
import air.runtime.Job;
import air.runtime.JobConfig;
import air.runtime.api.SourceFactory;
import air.runtime.plan.OperatorInfo;
import air.runtime.plan.PhysicalPlan;
import air.runtime.serial.SerialAllowList;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A streaming job under construction: {@code readFrom} one or more sources, chain stages, branch
 * (a stage may feed several), {@code merge} streams, join them, {@code writeTo} one or more sinks,
 * then {@link #execute} or {@link #submit}. Stages only record what was asked (a pure-data plan);
 * misuse fails at the call that caused it, naming it and its source line, and a stage that feeds
 * nothing fails when the job is planned, naming the stage. A pipeline runs once; afterwards its
 * stages reject further use.
 */
public final class Pipeline {

    private final List<StageNode> sources = new ArrayList<>();
    private String ranAt;

    private Pipeline() {
    }

    /**
     * An empty pipeline: add sources with {@link #readFrom}, then stages and sinks. The package of
     * the class that calls this (and its subpackages) joins the serializer's allow-list
     * ({@link SerialAllowList}): a job's records usually live beside the code that builds it.
     */
    public static Pipeline create() {
        Class<?> caller = CallSite.callerClass();
        if (caller != null) {
            SerialAllowList.allowPackageOf(caller);
        }
        return new Pipeline();
    }

    /** Starts a stream at a source; a pipeline may read from several (each source's instances run in every worker). */
    public <T> Stage<T> readFrom(SourceFactory<T> sourceFactory) {
        String site = CallSite.ofCaller();
        checkOpen("readFrom", site);
        Objects.requireNonNull(sourceFactory, "readFrom(source) at " + site + ": source is null");
        StageNode source = new StageNode(StageNode.Kind.SOURCE, (StageNode) null, OperatorInfo.of("source", site), sourceFactory, 0,
                false);
        sources.add(source);
        return new Stage<>(this, source);
    }

    /** The physical plan this pipeline runs as under {@code config}. */
    public PhysicalPlan plan(JobConfig config) {
        Objects.requireNonNull(config, "plan(config): config is null");
        if (sources.isEmpty()) {
            throw new IllegalStateException("the pipeline has no source: call readFrom(...) first");
        }
        return Planner.plan(sources, config.workers(), config.routing(), config.progress(), config.badRecordPolicy());
    }

    /** The physical plan as text, for the default configuration. */
    public String explain() {
        return plan(JobConfig.defaults()).explain();
    }

    /** The physical plan {@code config} would run: vertices, fused chains, branches and shuffles. */
    public String explain(JobConfig config) {
        return plan(config).explain();
    }

    /** Starts the job and returns at once; {@link Job#join()} waits for it. */
    public Job submit(JobConfig config) {
        String site = CallSite.ofCaller();
        checkOpen("submit", site);
        PhysicalPlan plan = plan(config);
        ranAt = site;
        return Engine.submit(plan, config);
    }

    /** Runs the job to its end on this JVM; throws {@link air.runtime.JobFailedException} if it fails. */
    public Job execute(JobConfig config) {
        String site = CallSite.ofCaller();
        checkOpen("execute", site);
        PhysicalPlan plan = plan(config);
        ranAt = site;
        Job job = Engine.submit(plan, config);
        job.join();
        return job;
    }

    /** {@link #execute(JobConfig)} with the defaults: all available processors. */
    public Job execute() {
        return execute(JobConfig.defaults());
    }

    void checkOpen(String call, String site) {
        if (ranAt != null) {
            throw new IllegalStateException(call + " at " + site + ": this pipeline already ran (started at " + ranAt
                    + "); build a new Pipeline to run again");
        }
    }

    /** Refuses a stage of another pipeline, naming the call. */
    void requireOwn(Pipeline other, String call, String site) {
        if (other != this) {
            throw new IllegalArgumentException(call + " at " + site + ": the other stage belongs to another pipeline; streams of"
                    + " different pipelines cannot be combined");
        }
    }
}
