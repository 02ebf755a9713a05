package air.runtime.api;

/** One instance of a parallel sink; called on its worker thread only. */
public interface SinkWriter<T> {

    void write(T item);

    /**
     * Event-time progress has reached this writer: every record it receives from now on has an
     * event time of at least {@code completeBelow} ({@code Long.MAX_VALUE}: none will come). For
     * a windowed stream that means every window ending at or before it has been written. Called
     * between writes when progress moves (at most once per batch), never under a pipeline without
     * timestamps. For writers that commit by event time, and the test kit's progress assertions.
     */
    default void onProgress(long completeBelow) {
    }

    /** Called once at end of input; a writer flushes and releases what it holds. */
    void close();

    /** Called instead of {@link #close} when the job failed: release resources, keep nothing half-written. */
    default void abort() {
    }
}
