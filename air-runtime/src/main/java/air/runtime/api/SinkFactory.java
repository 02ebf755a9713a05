package air.runtime.api;

import java.io.IOException;
import java.util.List;

/** Opens one writer per parallel sink instance. */
public interface SinkFactory<T> {

    SinkWriter<T> open(int instance, int parallelism);

    String describe();

    /**
     * What this sink holds from an earlier run that a fresh start of a checkpointed job would
     * replace (for example part files with lines in them), one entry per item, naming it; the job
     * refuses to start over them unless asked to start afresh. Empty by default.
     */
    default List<String> earlierOutput() throws IOException {
        return List.of();
    }

    /** Removes what {@link #earlierOutput} names: the user asked to start afresh. */
    default void discardEarlierOutput() throws IOException {
    }
}
