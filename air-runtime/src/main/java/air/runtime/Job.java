package air.runtime;

import java.time.Duration;

/** A submitted job. Every thread it starts has ended once {@link #join} returns or throws. */
public interface Job {

    String name();

    JobStatus status();

    /** Waits for the end; throws {@link JobFailedException} naming the operator when the job failed. */
    void join();

    /** Asks every tasklet to stop; {@link #join} then returns with status CANCELLED. */
    void cancel();

    /**
     * For every final window instance, its oldest open window and the upstream instances that
     * still hold its credit or hold back its watermark: the answer to "why is my window not firing?".
     */
    String progressReport();

    /** Wall time from start to end, or to now while running. */
    Duration elapsed();
}
