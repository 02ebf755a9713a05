package air.runtime.impl.exec;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * What every tasklet of one job shares: the first failure and the cancel flag. Failing or
 * cancelling wakes every tasklet so that none stays parked.
 */
public final class JobContext {

    private final String jobName;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private volatile boolean cancelled;

    public JobContext(String jobName) {
        this.jobName = jobName;
    }

    public String jobName() {
        return jobName;
    }

    void register(Thread thread) {
        threads.add(thread);
    }

    public List<Thread> threads() {
        return threads;
    }

    /** Records the first failure and stops the job; later failures are consequences and dropped. */
    public void fail(Throwable cause) {
        if (failure.compareAndSet(null, cause)) {
            cancel();
        }
    }

    public void cancel() {
        cancelled = true;
        for (Thread t : threads) {
            LockSupport.unpark(t);
        }
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
