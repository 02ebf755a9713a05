package air.runtime;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** A submitted job. Every thread it starts has ended once {@link #join} returns or throws. */
public interface Job {

    String name();

    JobStatus status();

    /** Waits for the end; throws {@link JobFailedException} naming the operator when the job failed. */
    void join();

    /**
     * Stops the job: every tasklet unwinds, and one blocked in a source or a user function (a
     * {@code take()}, a {@code sleep}, a lock) is interrupted; {@link #join} then returns with status
     * CANCELLED once every thread has ended (a function that ignores interruption holds it back).
     */
    void cancel();

    /**
     * Stops the job with a savepoint: every source takes its next checkpoint at once, whole, and
     * reads no more; once every peer has written it the job ends there — no end of input, no
     * window fired early — and {@link #join} returns with status {@link JobStatus#STOPPED}. A run
     * with the same checkpoint directory, on this layout or any other (other peers, other
     * workers), resumes from it. Asking one peer is enough: the others stop with it. The future
     * completes with the savepoint's checkpoint id, or exceptionally when the job ended first or
     * the savepoint could not be written (the job then goes on).
     *
     * @throws IllegalStateException when the job takes no checkpoints ({@code JobConfig.checkpoints})
     */
    default CompletableFuture<Long> stopWithSavepoint() {
        throw new IllegalStateException("job '" + name() + "' takes no checkpoints: a savepoint needs JobConfig.checkpoints(...)");
    }

    /**
     * For every final window instance, its oldest open window and the upstream instances that
     * still hold its credit or hold back its watermark: the answer to "why is my window not firing?".
     */
    String progressReport();

    /**
     * Whether, at the moment of the call, every item handed from one of this job's tasklets to
     * another in this JVM has been fully handled by its receiver (and whatever that handed on in
     * turn). Sources are not covered: what a source has not read yet, or is reading, is its own
     * business. For test drivers that step a job: once the sources have handed on their input
     * and this holds, nothing more happens until new input or time arrives. Cheap; the answer may
     * be stale the moment it returns while input still flows.
     */
    boolean quiescent();

    /** Wall time from start to end, or to now while running. */
    Duration elapsed();

    /**
     * What the job did on this peer so far — records in and out per operator, window results,
     * late records — or in all once it ended; readable after the job's meters left the registry.
     */
    JobSummary summary();
}
