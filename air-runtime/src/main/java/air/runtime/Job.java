package air.runtime;

import java.time.Duration;

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
     * For every final window instance, its oldest open window and the upstream instances that
     * still hold its credit or hold back its watermark: the answer to "why is my window not firing?".
     */
    String progressReport();

    /** Wall time from start to end, or to now while running. */
    Duration elapsed();

    /**
     * What the job did on this peer so far — records in and out per operator, window results,
     * late records — or in all once it ended; readable after the job's meters left the registry.
     */
    JobSummary summary();
}
