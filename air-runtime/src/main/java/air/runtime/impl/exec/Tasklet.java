package air.runtime.impl.exec;

import air.runtime.JobFailedException;
import air.runtime.impl.ops.OperatorFailure;

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
        } catch (OperatorFailure failure) {
            job.fail(new JobFailedException("job '" + job.jobName() + "' failed: operator " + failure.operator().name()
                    + " " + failureDetail(failure) + " at " + position() + " in " + name, failure.getCause()));
        } catch (Throwable t) {
            job.fail(new JobFailedException("job '" + job.jobName() + "' failed in " + name + " at " + position() + ": " + t, t));
        }
    }

    private static String failureDetail(OperatorFailure failure) {
        String message = failure.getMessage();
        String prefix = failure.operator().name() + " ";
        return message.startsWith(prefix) ? message.substring(prefix.length()) : message;
    }

    protected abstract void runBody();

    /** Where this tasklet is in its input, for error messages. */
    protected abstract String position();

    String name() {
        return name;
    }
}
