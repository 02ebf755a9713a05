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
import java.util.Objects;

/**
 * A streaming job under construction: {@code readFrom} a source, chain stages, {@code writeTo} a
 * sink, then {@link #execute} or {@link #submit}. Stages only record what was asked (a pure-data
 * plan); misuse fails at the call that caused it, naming it and its source line. A pipeline runs
 * once; afterwards its stages reject further use.
 */
public final class Pipeline {

    private StageNode source;
    private StageNode sink;
    private String ranAt;

    private Pipeline() {
    }

    public static Pipeline create() {
        return new Pipeline();
    }

    /** Starts the pipeline at a source; a pipeline has exactly one. */
    public <T> Stage<T> readFrom(SourceFactory<T> sourceFactory) {
        String site = CallSite.ofCaller();
        checkOpen("readFrom", site);
        Objects.requireNonNull(sourceFactory, "readFrom(source) at " + site + ": source is null");
        if (source != null) {
            throw new IllegalStateException("readFrom at " + site + ": this pipeline already reads from "
                    + source.info().name() + "; a pipeline has one source");
        }
        source = new StageNode(StageNode.Kind.SOURCE, null, OperatorInfo.of("source", site), sourceFactory, 0, false);
        return new Stage<>(this, source);
    }

    /** The physical plan this pipeline runs as under {@code config}. */
    public PhysicalPlan plan(JobConfig config) {
        Objects.requireNonNull(config, "plan(config): config is null");
        if (source == null) {
            throw new IllegalStateException("the pipeline has no source: call readFrom(...) first");
        }
        if (sink == null) {
            throw new IllegalStateException("the pipeline has no sink: end it with writeTo(...) (last stage: "
                    + last(source).info().name() + ")");
        }
        return Planner.plan(source, config.workers(), config.routing(), config.progress());
    }

    /** The physical plan as text, for the default configuration. */
    public String explain() {
        return plan(JobConfig.defaults()).explain();
    }

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

    void sinkAttached(StageNode node) {
        sink = node;
    }

    private static StageNode last(StageNode n) {
        while (n.downstream() != null) {
            n = n.downstream();
        }
        return n;
    }
}
