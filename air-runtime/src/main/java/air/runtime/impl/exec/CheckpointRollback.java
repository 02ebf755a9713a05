package air.runtime.impl.exec;

import air.runtime.JobConfig;
import air.runtime.JobStatus;
import air.runtime.ft.FaultTolerance;
import air.runtime.ft.ShuffleWiring;
import air.runtime.impl.checkpoint.CheckpointCommits;
import air.runtime.impl.checkpoint.CheckpointCoordinator;
import air.runtime.impl.cluster.ClusterSession;
import air.runtime.impl.event.JobEvents;
import air.runtime.plan.PhysicalPlan;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * Checkpointing and rollback: barrier-aligned snapshots written to a store once per interval; a
 * job started with a store holding a complete checkpoint of the same plan resumes from it, and
 * when a peer dies the whole world restarts and resumes (the launcher or the user runs it again).
 */
public final class CheckpointRollback implements FaultTolerance {

    private final Recovery recovery;
    private CheckpointCoordinator coordinator;
    private SavepointStop savepoints;
    private CheckpointCommits commits;
    private JobContext context;
    private JobConfig config;

    public CheckpointRollback(Recovery recovery) {
        this.recovery = recovery;
    }

    @Override
    public String fingerprintSuffix() {
        return "\nrestoring checkpoint " + recovery.restoredId();
    }

    @Override
    public String exactlyOnceBecause() {
        return "checkpoints";
    }

    @Override
    public JobGraph build(PhysicalPlan plan, JobConfig config, JobContext context, ClusterSession cluster, long clusterJob) {
        this.context = context;
        this.config = config;
        coordinator = recovery.coordinator(context::fail);
        savepoints = recovery.savepoints(coordinator, context::stopAt);
        JobGraph graph = JobGraph.build(plan, config, context, cluster == null ? null : cluster.transport(),
                recovery.forTasklets(coordinator, savepoints), ShuffleWiring.fixed(cluster == null ? null : cluster.transport()), -1,
                exactlyOnceBecause());
        coordinator.expect(graph.parts());
        commits = new CheckpointCommits(config.name(), recovery::writtenByAll).listenTo(coordinator);
        graph.committers().forEach(commits::register);
        return graph;
    }

    @Override
    public void started(RunningJob job, PhysicalPlan plan, JobConfig config, JobContext context, JobEvents events,
                        MeterRegistry registry) {
        coordinator.events(events);
        recovery.events(events);
        recovery.started();
        recovery.logStart();
    }

    @Override
    public JobStatus status(JobStatus running) {
        return recovery.recovering() ? JobStatus.RECOVERING : coordinator.inProgress() ? JobStatus.CHECKPOINTING : running;
    }

    @Override
    public boolean afterTasklets(BooleanSupplier joinTasklets) {
        boolean interrupted = false;
        try {
            FinalCheckpoint.commit(coordinator, commits, config, context, recovery::newestBegun);
        } catch (InterruptedException e) {
            interrupted = true;
        }
        coordinator.end(context.failure() != null);
        commits.close();
        return interrupted;
    }

    @Override
    public CompletableFuture<Long> stopWithSavepoint(String jobName) {
        return savepoints.request();
    }

    @Override
    public void stoppedAt(long id) {
        savepoints.stoppedAt(id);
    }

    @Override
    public void endedWithout(String how) {
        if (savepoints != null) {
            savepoints.jobEnded(how);
        }
    }

    @Override
    public void close() {
        if (coordinator != null) {
            coordinator.close();
        }
        if (commits != null) {
            commits.close();
        }
        recovery.release();
    }
}
