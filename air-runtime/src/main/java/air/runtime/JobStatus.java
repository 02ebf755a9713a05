package air.runtime;

/** The states a person reads in logs and meters. */
public enum JobStatus {
    /** Restoring state from a checkpoint before running again. */
    RECOVERING,
    RUNNING,
    /** Running, with a checkpoint being taken or written on this peer. */
    CHECKPOINTING,
    FINISHED,
    FAILED,
    CANCELLED,
    /** Stopped at a savepoint ({@link Job#stopWithSavepoint}): a run on any layout resumes from it. */
    STOPPED
}
