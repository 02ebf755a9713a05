package air.runtime.api;

/** Which clock a process function's timer follows. */
public enum TimeDomain {
    /** Event time: the timer fires once the operator's input is complete past it (its watermark or hew-meld credit). */
    EVENT_TIME,
    /** Processing time: the job's {@link TimeSource#currentTimeMillis()}. */
    PROCESSING_TIME
}
