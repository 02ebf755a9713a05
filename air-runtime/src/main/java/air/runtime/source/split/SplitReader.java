package air.runtime.source.split;

import air.runtime.api.Emitter;
import java.io.Closeable;
import java.io.IOException;

/** Reads one split from a position on; called on its source instance's thread only. */
public interface SplitReader<T> extends Closeable {

    /** Returned by {@link #read} when the split has nothing more, ever. */
    int FINISHED = -1;

    /**
     * Emits at most {@code max} records into {@code out}.
     *
     * @return the number emitted (0 when nothing is ready now), or {@link #FINISHED}
     * @throws IOException when the split cannot be read; the job fails naming the split
     */
    int read(int max, Emitter<? super T> out) throws IOException;

    /** Where to resume after the records emitted so far: opaque to the engine, given back to {@link Splits#open}. */
    byte[] position();

    /** Where the record being emitted (or the next one) comes from: {@code clicks.json:17}, {@code orders-3@1042}. */
    String origin();
}
