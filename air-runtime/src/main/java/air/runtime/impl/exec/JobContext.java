package air.runtime.impl.exec;

import air.runtime.api.OwnerToken;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * What every tasklet of one job shares: the first failure and the cancel flag. Failing or
 * cancelling wakes every tasklet so that none stays parked.
 */
public final class JobContext {

    private final String jobName;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    /** The threads that run operators and user functions (not the transport's receivers). */
    private final List<Thread> tasklets = new CopyOnWriteArrayList<>();
    private volatile boolean cancelled;
    /** The savepoint the job stopped at; 0 while it has not. */
    private volatile long stoppedAt;
    /** Who owns the sinks this peer opens now; a cluster job asks its membership (world, view). */
    private volatile Supplier<OwnerToken> owner;
    /** The cluster job's number, agreed by every peer; -1 outside cluster mode. */
    private volatile long clusterJob = -1;

    public JobContext(String jobName) {
        this.jobName = jobName;
        OwnerToken local = new OwnerToken(System.currentTimeMillis(), 0);
        this.owner = () -> local;
    }

    /** The fencing token for sinks opened now (see {@link OwnerToken}). */
    public OwnerToken owner() {
        return owner.get();
    }

    /** Sinks opened from now on are owned as {@code supplier} says (a cluster job: this world and its current view). */
    public void ownedBy(Supplier<OwnerToken> supplier) {
        owner = supplier;
    }

    public String jobName() {
        return jobName;
    }

    /** The peers agreed on this job as cluster job {@code job} ({@code ClusterSession.beginJob}): its frames carry that number. */
    void joinedClusterJob(long job) {
        clusterJob = job;
    }

    /** The cluster job's number, the same on every peer; -1 outside cluster mode. */
    public long clusterJob() {
        return clusterJob;
    }

    void register(Thread thread) {
        threads.add(thread);
    }

    /** A thread that runs operators and user functions: {@link #cancelNow} interrupts it. */
    void registerTasklet(Thread thread) {
        register(thread);
        tasklets.add(thread);
    }

    public List<Thread> threads() {
        return threads;
    }

    /**
     * Records the first failure and stops the job; later failures are consequences and dropped, as
     * is one after the job stopped at a savepoint (a peer that left once it stopped there too).
     * One lock with {@link #stopAt}: a job ends failed or stopped, never both.
     */
    public synchronized void fail(Throwable cause) {
        if (stoppedAt == 0 && failure.compareAndSet(null, cause)) {
            cancel();
        }
    }

    public void cancel() {
        cancelled = true;
        for (Thread t : threads) {
            LockSupport.unpark(t);
        }
    }

    /**
     * The user cancelled: besides {@link #cancel}, interrupts every tasklet thread, so that a source
     * or a user function blocked in {@code take()}, {@code sleep} or a lock wait unwinds at once
     * instead of holding {@code join()} back; what an interrupted tasklet throws then is part of
     * the cancellation, not a failure.
     */
    public void cancelNow() {
        cancel();
        for (Thread t : tasklets) {
            t.interrupt();
        }
    }

    /** The job stops at savepoint {@code id}: its tasklets unwind as on a cancel; no failure recorded after counts. */
    public synchronized void stopAt(long id) {
        if (failure.get() == null && stoppedAt == 0) {
            stoppedAt = id;
            cancelNow();
        }
    }

    /** The savepoint the job stopped at, 0 when it did not. */
    public long stoppedAt() {
        return stoppedAt;
    }

    public boolean isCancelled() {
        return cancelled;
    }

    public Throwable failure() {
        return failure.get();
    }

    /** Unwinds the calling tasklet once the job is cancelled. */
    public void checkCancelled() {
        if (cancelled) {
            throw CancelledSignal.INSTANCE;
        }
    }

    /** Thrown inside tasklets to unwind after cancellation; never escapes the job. */
    static final class CancelledSignal extends RuntimeException {
        static final CancelledSignal INSTANCE = new CancelledSignal();

        private CancelledSignal() {
            super("job cancelled", null, false, false);
        }
    }
}
