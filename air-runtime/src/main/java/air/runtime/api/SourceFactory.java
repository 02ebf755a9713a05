package air.runtime.api;

/** Creates the reader of each parallel instance of a source; instances read disjoint parts. */
public interface SourceFactory<T> {

    SourceReader<T> createReader(int instance, int parallelism);

    /** A one-line description for the plan, e.g. {@code generate(5000000)}. */
    String describe();

    /**
     * Why this source cannot replay what it emitted after a checkpoint (live input handed over by
     * the application and kept nowhere), naming the fix; null when it can (the default). A job with
     * checkpoints or replicas refuses such a source before it starts.
     */
    default String notReplayableBecause() {
        return null;
    }
}
