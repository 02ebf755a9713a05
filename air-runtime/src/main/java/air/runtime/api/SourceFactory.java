package air.runtime.api;

/** Creates the reader of each parallel instance of a source; instances read disjoint parts. */
public interface SourceFactory<T> {

    SourceReader<T> createReader(int instance, int parallelism);

    /** A one-line description for the plan, e.g. {@code generate(5000000)}. */
    String describe();
}
