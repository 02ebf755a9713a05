package air.replication.replica;

import air.runtime.JobConfig;
import air.runtime.JobStatus;
import air.runtime.ft.FaultTolerance;
import air.runtime.impl.checkpoint.CheckpointCommits;
import air.runtime.impl.checkpoint.CheckpointCoordinator;
import air.runtime.impl.cluster.ClusterSession;
import air.runtime.impl.event.JobEvents;
import air.runtime.impl.exec.Checkpointing;
import air.runtime.impl.exec.FinalCheckpoint;
import air.runtime.impl.exec.JobContext;
import air.runtime.impl.exec.JobGraph;
import air.runtime.impl.exec.KeyTypeCheck;
import air.runtime.impl.exec.RunningJob;
import air.runtime.plan.PhysicalPlan;
import air.runtime.plan.TailSpec;
import air.runtime.plan.VertexPlan;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replication: the same barrier-aligned snapshots, sent into the memory of the next {@code k}
 * live peers; every producer keeps an upstream-backup log; when a peer dies the next live one
 * takes its blocks over from its copy ({@link Takeover}) and nobody rolls back.
 */
final class ReplicatedState implements FaultTolerance {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicatedState.class);

    /** The bound on each producer's upstream-backup log, in bytes (a system property; 256 MiB unless set). */
    static final String LOG_BYTES_PROPERTY = "air.replication.upstreamLogBytes";
    private static final long DEFAULT_LOG_BYTES = 256L << 20;
    /** The most bytes of a replica copy in one frame (a system property; 8 MiB unless set): larger copies go in chunks. */
    static final String CHUNK_BYTES_PROPERTY = "air.replication.chunkBytes";

    private final ClusterSession cluster;
    private final MeterRegistry registry;
    private ReplicaService replicas;
    private ReplicationContext replication;
    private CheckpointCoordinator coordinator;
    /** Tells two-phase-commit sinks of each checkpoint this peer's replicas acknowledged: no peer rolls back, so that is complete. */
    private CheckpointCommits commits;
    private Takeover takeover;
    private JobContext context;
    private JobConfig config;

    private ReplicatedState(ClusterSession cluster, MeterRegistry registry) {
        this.cluster = cluster;
        this.registry = registry;
    }

    /** Refuses a replicated job that cannot be replicated, before any peer runs it. */
    static ReplicatedState prepare(PhysicalPlan plan, JobConfig config, ClusterSession cluster, MeterRegistry registry) {
        String job = "job '" + config.name() + "': ";
        if (cluster == null) {
            throw new IllegalArgumentException(job + "replication needs cluster mode (JobConfig.cluster): the copies live on other peers");
        }
        if (!cluster.transport().survivesPeerLoss()) {
            throw new IllegalArgumentException(job + "replication needs a transport that survives a peer's death: start the peers with "
                    + "AIR_TRANSPORT=tcp ('./air ... --replicas K' does); over MPJ Express one rank's death breaks every link");
        }
        if (config.replicas() >= cluster.peers()) {
            throw new IllegalArgumentException(job + "replicas=" + config.replicas() + " needs more peers than that, there are "
                    + cluster.peers());
        }
        if (config.checkpointStore() != null) {
            throw new IllegalArgumentException(job + "choose checkpoints or replication, not both");
        }
        KeyTypeCheck.requireStableKeys(plan, config);
        for (VertexPlan v : plan.vertices()) {
            if (v.head().inputs() == 0) {
                continue;
            }
            for (TailSpec.Shuffle t : v.shuffleTails()) {
                if (t instanceof TailSpec.Exchange x) {
                    // a replayed source repeats its records in their order; a vertex behind a shuffle replays in whatever order
                    // the logs interleave after a takeover, so its records' numbers would not name the same records again
                    throw new IllegalArgumentException(job + x.info() + " follows " + v.head().info() + ": under replication an exchange"
                            + " must be in a source's chain (move it before the window or join), or use checkpoints");
                }
            }
        }
        return new ReplicatedState(cluster, registry);
    }

    @Override
    public boolean survivesPeerLoss() {
        return true;
    }

    @Override
    public String exactlyOnceBecause() {
        return "replication";
    }

    @Override
    public JobGraph build(PhysicalPlan plan, JobConfig config, JobContext context, ClusterSession session, long clusterJob) {
        this.context = context;
        this.config = config;
        BarrierDelivery delivery = new BarrierDelivery(cluster);
        replicas = new ReplicaService(cluster, clusterJob, config.replicas(), config.workers(), config.fullCheckpointEvery(), delivery,
                context::fail, ReplicaService.ACK_TIMEOUT_MS, Integer.getInteger(CHUNK_BYTES_PROPERTY, Chunks.DEFAULT_BYTES));
        replication = ReplicationContext.create(cluster, replicas, delivery, new ReplicationContext.LogBound(
                Long.getLong(LOG_BYTES_PROPERTY, DEFAULT_LOG_BYTES), context::isCancelled,
                Counter.builder("air.upstream.log.holds").tag("job", config.name())
                        .description("a producer held back because its upstream-backup log was over its bound").register(registry)));
        coordinator = new CheckpointCoordinator(replicas, config.name(), config.name(), cluster.self(), cluster.peers(), 0,
                replicas.keepsChains() ? config.fullCheckpointEvery() : 1, registry, context::fail);
        coordinator.reportSlowWritesAfter(config.stallReportMs());
        CheckpointCoordinator c = coordinator;
        long interval = config.replicationIntervalMs() * 1_000_000L;
        JobGraph graph = JobGraph.build(plan, config, context, cluster.transport(), part -> new Checkpointing(c, interval, 0, null, () -> { }),
                new ReplicatedWiring(replication), -1, exactlyOnceBecause());
        coordinator.expect(graph.parts());
        commits = new CheckpointCommits(config.name(), id -> true).listenTo(coordinator);
        graph.committers().forEach(commits::register);
        return graph;
    }

    @Override
    public void started(RunningJob job, PhysicalPlan plan, JobConfig config, JobContext context, JobEvents events,
                        MeterRegistry registry) {
        coordinator.events(events);
        replicas.events(config.name(), events);
        takeover = new Takeover(plan, config, context, replication, coordinator,
                g -> g.committers().forEach(commits::register), registry, job::startAdopted);
        takeover.events(events);
        replicas.onTakeover(takeover::movedTo);
        cluster.onPeerLoss(takeover::viewChanged);
        LOG.info("job '{}': replication on, state of peer {} copied every {} ms to {}", config.name(), cluster.self(),
                config.replicationIntervalMs(), replicas.describe());
    }

    @Override
    public JobStatus status(JobStatus running) {
        return takeover != null && takeover.recovering() ? JobStatus.RECOVERING
                : coordinator.inProgress() ? JobStatus.CHECKPOINTING : running;
    }

    /** Takes blocks over until every live peer is finishing, so that no share is left without a host. */
    @Override
    public boolean afterTasklets(BooleanSupplier joinTasklets) {
        boolean interrupted = false;
        try {
            takeover.beginFinishing();
        } catch (InterruptedException e) {
            interrupted = true;
        }
        interrupted |= joinTasklets.getAsBoolean(); // those of blocks taken over meanwhile
        try {
            // held by the replicas: the sinks commit their last output (every peer's checkpoints complete on their own)
            FinalCheckpoint.commit(coordinator, commits, config, context, FinalCheckpoint.NewestElsewhere.NONE);
        } catch (InterruptedException e) {
            interrupted = true;
        }
        coordinator.end(context.failure() != null);
        commits.close();
        return interrupted;
    }

    @Override
    public void close() {
        cluster.onPeerLoss(null);
        if (coordinator != null) {
            coordinator.close();
        }
        if (commits != null) {
            commits.close();
        }
        if (replicas != null) {
            replicas.close();
        }
    }
}
