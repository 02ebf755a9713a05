package air.runtime.impl.exec;

import air.runtime.Job;
import air.runtime.JobConfig;
import air.runtime.JobEvent;
import air.runtime.JobFailedException;
import air.runtime.JobStatus;
import air.runtime.JobSummary;
import air.runtime.JvmFlags;
import air.runtime.PeerFencedException;
import air.runtime.ft.FaultTolerance;
import air.runtime.impl.cluster.ClusterAccess;
import air.runtime.impl.cluster.ClusterSession;
import air.runtime.impl.cluster.PlanFingerprint;
import air.runtime.impl.event.JobEvents;
import air.runtime.impl.shuffle.Inbox;
import air.runtime.plan.PhysicalPlan;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A job running on this JVM: its tasklets' threads, its meters and its outcome. */
public final class RunningJob implements Job {

    private static final Logger LOG = LoggerFactory.getLogger(RunningJob.class);

    private final PhysicalPlan plan;
    private final JobContext context;
    private final JobGraph graph;
    private final JobMetrics metrics;
    private final ReentrantLock joinLock = new ReentrantLock();
    /** Once the job ended: its summary (its meters have left the registry). */
    private volatile JobSummary summary;
    private final AtomicInteger running = new AtomicInteger();
    private final long startNanos;
    private volatile long endNanos;
    private volatile JobStatus status = JobStatus.RUNNING;
    private boolean joined;
    private Thread stallWatch;

    private final ClusterSession cluster;
    private final long clusterJob;
    /** How this job survives failures: chosen once, in {@link FaultTolerance#of}. */
    private final FaultTolerance faultTolerance;
    private final List<JobGraph> adopted = new CopyOnWriteArrayList<>();
    /** Where this job's {@link air.runtime.JobEvent}s go: the listeners of its config. */
    private JobEvents events = JobEvents.NONE;
    /** How long this peer waits for the others at the end of the job. */
    private ClusterSession.Patience finishPatience = ClusterSession.Patience.UNBOUNDED;

    private RunningJob(PhysicalPlan plan, JobContext context, JobGraph graph, JobMetrics metrics, ClusterSession cluster, long clusterJob,
                       FaultTolerance faultTolerance) {
        this.plan = plan;
        this.faultTolerance = faultTolerance;
        this.context = context;
        this.graph = graph;
        this.metrics = metrics;
        this.cluster = cluster;
        this.clusterJob = clusterJob;
        this.startNanos = System.nanoTime();
    }

    private static final AtomicBoolean INLINE_HINT_GIVEN = new AtomicBoolean();

    public static RunningJob start(PhysicalPlan plan, JobConfig config) {
        if (!INLINE_HINT_GIVEN.getAndSet(true) && !JvmFlags.operatorsForceInlined()) {
            LOG.info("for full speed run the JVM with {} (see docs/operations.md, Tuning)", String.join(" ", JvmFlags.recommended()));
        }
        JobContext context = new JobContext(config.name());
        ClusterSession cluster = config.cluster() == null ? null : ClusterAccess.session(config.cluster());
        if (cluster != null) {
            context.ownedBy(cluster::owner);
        }
        int self = cluster == null ? 0 : cluster.self();
        int peers = cluster == null ? 1 : cluster.peers();
        JobEvents events = new JobEvents(config.listeners());
        MeterRegistry registry = config.meterRegistryOrDefault();
        FaultTolerance ft = FaultTolerance.of(plan, config, cluster, registry);
        long clusterJob;
        try {
            clusterJob = cluster == null ? -1 : joinClusterJob(plan, config, context, cluster, ft);
            context.joinedClusterJob(clusterJob);
        } catch (RuntimeException e) {
            ft.close(); // gives back what it holds (a checkpoint directory's lock)
            throw e;
        }
        JobGraph graph;
        try {
            graph = ft.build(plan, config, context, cluster, clusterJob);
        } catch (RuntimeException e) {
            ft.close();
            if (cluster != null) {
                cluster.abortAll(clusterJob, e.toString());
                cluster.endJob(clusterJob);
                JobGraph.discardFrames(plan, cluster.transport()); // what the others sent before they heard: nobody here reads it
            }
            throw e;
        }
        JobMetrics metrics = new JobMetrics(registry, config.name(), graph);
        RunningJob job = new RunningJob(plan, context, graph, metrics, cluster, clusterJob, ft);
        job.events = events;
        job.finishPatience = finishPatience(config);
        ft.started(job, plan, config, context, events, registry);
        LOG.info("job '{}' starting: {} tasklet(s), {} worker(s)", config.name(), graph.tasklets().size(), config.workers());
        events.publish(new JobEvent.Started(config.name(), self, System.currentTimeMillis(), graph.tasklets().size(),
                config.workers()));
        job.startThreads();
        if (config.stallReportMs() > 0 && !job.graph.finals().isEmpty()) {
            job.stallWatch = ProgressReports.startStallWatch(context, graph, config.stallReportMs(), () -> job.running.get() > 0);
        }
        return job;
    }

    /** Starts the tasklets of blocks taken over from a dead peer (on the takeover's thread). */
    public void startAdopted(List<JobGraph> graphs) {
        List<Tasklet> tasklets = new ArrayList<>();
        for (JobGraph g : graphs) {
            adopted.add(g);
            graph.meterAlso(g);
            tasklets.addAll(g.tasklets());
        }
        startThreads(tasklets, graphs);
    }

    /** Cluster mode: checks the plan can cross peers, then agrees on it with every peer. */
    private static long joinClusterJob(PhysicalPlan plan, JobConfig config, JobContext context, ClusterSession cluster,
                                       FaultTolerance ft) {
        String restoring = ft.fingerprintSuffix();
        KeyTypeCheck.requireStableKeys(plan, config);
        String fingerprint = PlanFingerprint.of(plan, config, cluster.peers()) + restoring;
        try {
            return cluster.beginJob(fingerprint, new ClusterSession.JobFailures() {
                @Override
                public void failed(String why) {
                    context.fail(new JobFailedException("job '" + config.name() + "' failed on peer " + cluster.self() + ": " + why, null));
                }

                @Override
                public void stopped(long savepoint, String by) {
                    if (context.stoppedAt() == 0) {
                        LOG.info("job '{}': {} stopped at savepoint {}: stopping there too", config.name(), by, savepoint);
                        context.stopAt(savepoint);
                    }
                }

                @Override
                public void fenced(String why) {
                    context.fail(new PeerFencedException("job '" + config.name() + "' stopped on peer " + cluster.self() + ": " + why));
                    context.cancelNow(); // sinks first: every tasklet is interrupted and unwinds before it writes again
                }
            }, ft.survivesPeerLoss());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the peers agreed on the plan", e);
        }
    }

    private void startThreads() {
        startThreads(graph.tasklets(), List.of(graph));
        for (RemoteShuffleTasklet r : graph.receivers()) {
            Thread t = Thread.ofVirtual().name(context.jobName() + "/" + r.name()).unstarted(r::run);
            receiverThreads.add(t);
            context.register(t);
            t.start();
        }
    }

    /** The job failed, then this peer found it had been paused past the failure timeout: how it ended, fenced. */
    private volatile PeerFencedException fencedAfterFailure;

    /** Replication: the receivers of remote items, joined after the finish barrier. */
    private final List<Thread> receiverThreads = new ArrayList<>();

    private void startThreads(List<Tasklet> tasklets, List<JobGraph> graphs) {
        running.addAndGet(tasklets.size());
        Thread[] threads = new Thread[tasklets.size()];
        for (int i = 0; i < threads.length; i++) {
            Tasklet t = tasklets.get(i);
            threads[i] = Thread.ofVirtual().name(context.jobName() + "/" + t.name()).unstarted(() -> {
                try {
                    t.run();
                } finally {
                    if (running.decrementAndGet() == 0) {
                        endNanos = System.nanoTime();
                    }
                }
            });
            context.registerTasklet(threads[i]);
            for (JobGraph g : graphs) {
                g.bindConsumer(t, threads[i]);
            }
        }
        for (Thread thread : threads) {
            thread.start();
        }
    }

    @Override
    public String progressReport() {
        return ProgressReports.report(name(), status(), graphs());
    }

    @Override
    public String name() {
        return context.jobName();
    }

    @Override
    public boolean quiescent() {
        List<Inbox> inboxes = new ArrayList<>();
        for (JobGraph g : graphs()) {
            g.inboxes().values().forEach(a -> inboxes.addAll(Arrays.asList(a)));
        }
        long before = offered(inboxes);
        for (Inbox in : inboxes) {
            if (!in.drained()) {
                return false;
            }
        }
        return offered(inboxes) == before; // nothing was offered meanwhile behind an inbox already read as drained
    }

    private static long offered(List<Inbox> inboxes) {
        long sum = 0;
        for (Inbox in : inboxes) {
            sum += in.offeredCount();
        }
        return sum;
    }

    @Override
    public JobStatus status() {
        JobStatus s = status;
        if (s == JobStatus.RUNNING && context.failure() != null) {
            return JobStatus.FAILED; // known at once, before a join has wound the job down
        }
        return s == JobStatus.RUNNING ? faultTolerance.status(s) : s;
    }

    @Override
    public void join() {
        // a lock, not a monitor: a virtual thread that joins a long job must not pin its carrier meanwhile
        joinLock.lock();
        try {
            joinOnce();
        } finally {
            joinLock.unlock();
        }
        Throwable failure = fencedAfterFailure != null ? fencedAfterFailure : context.failure();
        if (failure instanceof PeerFencedException fenced) {
            throw new PeerFencedException(fenced.getMessage()); // thrown here, with the joiner's stack
        } else if (failure instanceof JobFailedException jfe) {
            throw new JobFailedException(jfe.getMessage(), jfe.getCause());
        } else if (failure != null) {
            throw new JobFailedException("job '" + name() + "' failed: " + failure, failure);
        }
    }

    /** The first joiner waits for the tasklets and ends the job; later ones find it ended. */
    private void joinOnce() {
        if (!joined) {
            boolean interrupted = joinTasklets();
            if (faultTolerance.afterTasklets(this::joinTasklets)) {
                interrupted = true;
                context.cancel();
            }
            if (stallWatch != null) {
                LockSupport.unpark(stallWatch);
                try {
                    stallWatch.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (cluster != null) {
                leaveClusterJob();
            }
            faultTolerance.close();
            for (JobGraph g : graphs()) { // receivers that outlive the tasklets (replication) stop now
                g.receivers().forEach(RemoteShuffleTasklet::stop);
            }
            for (Thread t : receiverThreads) {
                interrupted |= joinQuietly(t);
            }
            if (cluster != null) { // every receiver here has ended (in fixed placement they are tasklets, joined above)
                JobGraph.discardFrames(plan, cluster.transport());
            }
            finish();
            joined = true;
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Joins every tasklet thread but the receivers; true if interrupted meanwhile (the job is then cancelled). */
    private boolean joinTasklets() {
        boolean interrupted = false;
        for (Thread t : context.threads()) {
            if (!receiverThreads.contains(t)) {
                interrupted |= joinQuietly(t);
            }
        }
        return interrupted;
    }

    private boolean joinQuietly(Thread t) {
        boolean interrupted = false;
        while (true) {
            try {
                t.join();
                return interrupted;
            } catch (InterruptedException e) {
                interrupted = true;
                context.cancel();
            }
        }
    }

    /** This peer's own graph and those of blocks it took over. */
    private List<JobGraph> graphs() {
        List<JobGraph> all = new ArrayList<>();
        all.add(graph);
        all.addAll(adopted);
        return all;
    }

    /** Cluster mode: tells the peers how this part ended and, if well, waits until theirs have too. */
    private void leaveClusterJob() {
        try {
            Throwable failure = context.failure();
            if (failure != null && !(failure instanceof PeerFencedException) && cluster.fencedAfterPause() != null) {
                // it failed because it was paused past the failure timeout: the others removed it, so it is fenced
                failure = new PeerFencedException("job '" + name() + "' stopped on peer " + cluster.self() + ": "
                        + cluster.fencedBecause() + " (its part had failed meanwhile: " + failure.getMessage() + ")");
                fencedAfterFailure = (PeerFencedException) failure;
            }
            if (failure instanceof PeerFencedException) {
                return; // the others go on without this peer: it must not abort their job
            }
            if (failure == null && context.stoppedAt() > 0) {
                cluster.stopBarrier(clusterJob, context.stoppedAt(), finishPatience);
                return;
            }
            if (failure != null || context.isCancelled()) {
                cluster.abortAll(clusterJob, failure != null ? failure.getMessage() : "cancelled");
                return;
            }
            LOG.info("job '{}': peer {}'s part is done; waiting for the other peers", name(), cluster.self());
            events.publish(new JobEvent.PartDone(name(), cluster.self(), System.currentTimeMillis()));
            cluster.finishBarrier(clusterJob, finishPatience);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            context.fail(new JobFailedException("job '" + name() + "' interrupted while waiting for the other peers", e));
        } catch (IllegalStateException e) {
            context.fail(new JobFailedException("job '" + name() + "' failed on peer " + cluster.self() + ": " + e.getMessage(), e));
            if (cluster.fencedBecause() == null) { // a fenced peer must not abort the others' job
                cluster.abortAll(clusterJob, e.getMessage()); // a stuck peer that gets going again fails too, instead of waiting for us
            }
        } finally {
            cluster.endJob(clusterJob);
        }
    }

    /** How long a peer waits for the others at the end: {@link JobConfig#finishTimeoutMs}, noting the missing ones at each stall report. */
    private static ClusterSession.Patience finishPatience(JobConfig config) {
        long note = config.stallReportMs() > 0 ? config.stallReportMs() : ClusterSession.Patience.UNBOUNDED.noteEveryMs();
        return new ClusterSession.Patience(config.finishTimeoutMs(), note);
    }

    private void finish() {
        closeDeferredSinks();
        Throwable failure = fencedAfterFailure != null ? fencedAfterFailure : context.failure();
        if (failure == null && context.stoppedAt() > 0) {
            graphs().forEach(JobGraph::abortSinks); // what they wrote after the savepoint is not part of it
            status = JobStatus.STOPPED;
            faultTolerance.stoppedAt(context.stoppedAt());
            LOG.info("job '{}' STOPPED at savepoint {} after {} ms: a run on any layout resumes from it", name(), context.stoppedAt(),
                    elapsed().toMillis());
            events.publish(new JobEvent.Stopped(name(), peer(), System.currentTimeMillis(), context.stoppedAt()));
        } else if (failure != null) {
            faultTolerance.endedWithout("failed");
            graphs().forEach(JobGraph::abortSinks);
            status = JobStatus.FAILED;
            LOG.error("job '{}' FAILED after {} ms: {}", name(), elapsed().toMillis(), failure.getMessage());
            events.publish(new JobEvent.Failed(name(), peer(), System.currentTimeMillis(), String.valueOf(failure.getMessage())));
        } else if (context.isCancelled()) {
            faultTolerance.endedWithout("was cancelled");
            graphs().forEach(JobGraph::abortSinks);
            status = JobStatus.CANCELLED;
            LOG.info("job '{}' CANCELLED after {} ms", name(), elapsed().toMillis());
            events.publish(new JobEvent.Cancelled(name(), peer(), System.currentTimeMillis()));
        } else {
            status = JobStatus.FINISHED;
            faultTolerance.endedWithout("finished (its input ended)");
            JobSummary s = metrics.summary(status, elapsed());
            LOG.info("job '{}' FINISHED in {} ms: {} records read, {} window results, {} late records dropped", name(),
                    elapsed().toMillis(), s.recordsIn(), s.windowResults(), s.lateRecords());
            warnIfMostlyLate(s);
            events.publish(new JobEvent.Finished(name(), peer(), System.currentTimeMillis(), elapsed().toMillis()));
        }
        metrics.recordEnd(elapsed(), status);
        summary = metrics.summary(status, elapsed());
        metrics.close();
    }

    /**
     * Once the job has ended well on every tasklet (with checkpoints or replicas: its final
     * checkpoint committed; in cluster mode: every peer passed the finish barrier), the
     * two-phase-commit writers close. Their last output was committed with the final checkpoint;
     * a commit that failed there is tried once more here, and one that fails again fails the job.
     */
    private void closeDeferredSinks() {
        if (context.failure() != null || context.isCancelled() || context.stoppedAt() > 0 || fencedAfterFailure != null) {
            return;
        }
        for (JobGraph g : graphs()) {
            try {
                g.closeDeferredSinks();
            } catch (RuntimeException e) {
                context.fail(new JobFailedException("job '" + name() + "': a sink could not commit its last output at the end of input: "
                        + e.getMessage(), e));
                return;
            }
        }
    }

    /** The share of windowed records dropped as late above which the end of a job says so. */
    static final double LATE_WARNING_SHARE = 0.1;

    /** A WARN when more than a tenth of the records that reached the windows were late: the timestamps are likely wrong. */
    private static void warnIfMostlyLate(JobSummary s) {
        long windowed = s.ofKind("window-partial").stream().mapToLong(JobSummary.Operator::recordsIn).sum();
        if (windowed > 0 && s.lateRecords() > LATE_WARNING_SHARE * windowed) {
            LOG.warn(String.format(Locale.ROOT, "job '%s': %.2f %% of the %d records that reached its windows were late and dropped "
                    + "(behind the watermark, or in an epoch hew-meld had released): check the timestamps given to withTimestamps and "
                    + "its allowed disorder, or send them to window(...).sideOutputLateRecords(sink) to see them", s.job(),
                    100.0 * s.lateRecords() / windowed, windowed));
        }
    }

    @Override
    public JobSummary summary() {
        JobSummary ended = summary;
        return ended != null ? ended : metrics.summary(status(), elapsed());
    }

    /** This peer's rank, 0 outside cluster mode (for events). */
    private int peer() {
        return cluster == null ? 0 : cluster.self();
    }

    @Override
    public void cancel() {
        context.cancelNow();
    }

    @Override
    public CompletableFuture<Long> stopWithSavepoint() {
        return faultTolerance.stopWithSavepoint(name());
    }

    @Override
    public Duration elapsed() {
        long end = running.get() == 0 && endNanos != 0 ? endNanos : System.nanoTime();
        return Duration.ofNanos(end - startNanos);
    }

    /** Threads of this job still alive: zero once {@link #join} has returned or thrown. */
    public long liveThreads() {
        return context.threads().stream().filter(Thread::isAlive).count();
    }
}
