package air.runtime.api;

/** Opens one writer per parallel sink instance. */
public interface SinkFactory<T> {

    SinkWriter<T> open(int instance, int parallelism);

    String describe();
}
