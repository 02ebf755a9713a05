package air.runtime.api;

/** One instance of a parallel sink; called on its worker thread only. */
public interface SinkWriter<T> {

    void write(T item);

    /** Called once at end of input; a writer flushes and releases what it holds. */
    void close();

    /** Called instead of {@link #close} when the job failed: release resources, keep nothing half-written. */
    default void abort() {
    }
}
