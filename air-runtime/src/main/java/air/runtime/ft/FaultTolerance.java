package air.runtime.ft;

import air.runtime.JobConfig;
import air.runtime.JobStatus;
import air.runtime.impl.cluster.ClusterSession;
import air.runtime.impl.event.JobEvents;
import air.runtime.impl.exec.CheckpointRollback;
import air.runtime.impl.exec.Checkpointing;
import air.runtime.impl.exec.JobContext;
import air.runtime.impl.exec.JobGraph;
import air.runtime.impl.exec.Recovery;
import air.runtime.impl.exec.RunningJob;
import air.runtime.plan.PhysicalPlan;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * How a job survives a failure: one strategy per job, chosen in one place ({@link #of}) when it
 * starts — {@link #NONE}, checkpoint rollback (barrier-aligned checkpoints to a store, the whole
 * world restarts from the newest complete one) or replication (snapshots in other peers' memory,
 * survivors take a dead peer's share over; it lives in the {@code air-replication} module and is
 * found through {@link ReplicationProvider}). The job's lifecycle ({@link RunningJob}) calls these
 * hooks in this order and never tests which strategy runs; the graph asks it for each tasklet's
 * link to snapshots and for how its shuffles cross peers ({@link ShuffleWiring}).
 */
public interface FaultTolerance {

    /** The strategy {@code config} asks for, validated against the plan and the cluster before any peer runs. */
    static FaultTolerance of(PhysicalPlan plan, JobConfig config, ClusterSession cluster, MeterRegistry registry) {
        if (config.replicas() > 0) {
            return replication().prepare(plan, config, cluster, registry);
        }
        if (config.checkpointStore() != null) {
            int self = cluster == null ? 0 : cluster.self();
            int peers = cluster == null ? 1 : cluster.peers();
            return new CheckpointRollback(Recovery.prepare(plan, config, self, peers, registry));
        }
        return NONE;
    }

    /** The replication module on the class path, or a message saying which artifact to add. */
    private static ReplicationProvider replication() {
        for (ReplicationProvider p : ServiceLoader.load(ReplicationProvider.class, FaultTolerance.class.getClassLoader())) {
            return p;
        }
        throw new IllegalStateException("replicas > 0 needs the replication module: add dev.air:air-replication to the class path");
    }

    /** Whether the job goes on when a peer is lost (its share taken over elsewhere) instead of failing. */
    default boolean survivesPeerLoss() {
        return false;
    }

    /** What the peers must agree on besides the plan (the checkpoint they restore). */
    default String fingerprintSuffix() {
        return "";
    }

    /** Why every sink must be exactly-once ({@code CheckpointedSinkWriter}), or null when they need not be. */
    default String exactlyOnceBecause() {
        return null;
    }

    /** The job is agreed with every peer: builds this peer's graph with the strategy's links to snapshots. */
    JobGraph build(PhysicalPlan plan, JobConfig config, JobContext context, ClusterSession cluster, long clusterJob);

    /** The graph is built and the job about to start its threads: logs and wires what follows peer losses. */
    default void started(RunningJob job, PhysicalPlan plan, JobConfig config, JobContext context, JobEvents events,
                         MeterRegistry registry) {
    }

    /** RECOVERING or CHECKPOINTING while the strategy is busy, else {@code running}. */
    default JobStatus status(JobStatus running) {
        return running;
    }

    /**
     * This peer's tasklets have ended: blocks taken over meanwhile have ended too once this returns
     * ({@code joinTasklets} joins the ones started since), and no snapshot is under way.
     *
     * @return whether the thread was interrupted meanwhile
     */
    default boolean afterTasklets(BooleanSupplier joinTasklets) {
        return false;
    }

    /**
     * Asks for a stop with a savepoint ({@link air.runtime.Job#stopWithSavepoint}); only
     * checkpointing can take one (a replicated job keeps no checkpoints to resume from).
     */
    default CompletableFuture<Long> stopWithSavepoint(String jobName) {
        throw new IllegalStateException("job '" + jobName + "' takes no checkpoints to a directory: a savepoint needs "
                + "JobConfig.checkpoints(...)");
    }

    /** The job stopped at savepoint {@code id}, found here or heard from another peer. */
    default void stoppedAt(long id) {
    }

    /** The job ended (its threads are done) without stopping at a savepoint: {@code how}, for whoever waits for one. */
    default void endedWithout(String how) {
    }

    /** The job ended on every peer (or failed), or its graph could not be built: releases what the strategy holds. */
    default void close() {
    }

    /** No fault tolerance: a failure fails the job. */
    FaultTolerance NONE = new FaultTolerance() {
        @Override
        public JobGraph build(PhysicalPlan plan, JobConfig config, JobContext context, ClusterSession cluster, long clusterJob) {
            return JobGraph.build(plan, config, context, cluster == null ? null : cluster.transport(), part -> Checkpointing.OFF,
                    ShuffleWiring.fixed(cluster == null ? null : cluster.transport()), -1, null);
        }
    };
}
