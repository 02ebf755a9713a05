package air.runtime;

/** The states a person reads in logs and meters. */
public enum JobStatus {
    RUNNING,
    FINISHED,
    FAILED,
    CANCELLED
}
