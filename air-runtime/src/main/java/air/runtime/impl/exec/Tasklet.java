package air.runtime.impl.exec;

import air.runtime.JobFailedException;
import air.runtime.impl.failure.OperatorFailure;

/**
 * One instance of a vertex, run on its own virtual thread. Turns any failure into the job's
 * failure with the operator and the record's position in the message.
 */
abstract class Tasklet implements Runnable {

    protected final JobContext job;
    protected final String name;

    Tasklet(JobContext job, String name) {
        this.job = job;
        this.name = name;
    }

    @Override
    public final void run() {
        try {
            runBody();
        } catch (JobContext.CancelledSignal cancelled) {
            // another tasklet failed or the job was cancelled: just unwind
        } catch (Throwable t) {
            if (job.isCancelled() && !(t instanceof Error)) {
                return; // thrown while unwinding after a cancel or another tasklet's failure (an interrupted take, sleep, lock)
            }
            fail(t);
        }
    }

    private void fail(Throwable t) {
        if (t instanceof OperatorFailure failure) {
            job.fail(new JobFailedException("job '" + job.jobName() + "' failed: operator " + failure.operator().name()
                    + " " + failure.what() + " (" + position() + ", tasklet " + name + "): " + failure.getCause(), failure.getCause()));
        } else {
            job.fail(new JobFailedException("job '" + job.jobName() + "' failed in tasklet " + name + " (" + position() + "): " + t, t));
        }
    }

    protected abstract void runBody();

    /** Where this tasklet is in its input, for error messages. */
    protected abstract String position();

    String name() {
        return name;
    }
}
