package air.runtime.api;

/**
 * One instance of a parallel source. Its position is a plain number so that it can be
 * snapshotted and replayed: after {@code seek(p)} the reader emits exactly what it emitted
 * after it first reached {@code position() == p}.
 */
public interface SourceReader<T> {

    /** Returned by {@link #read} when the reader will never emit again. */
    int EXHAUSTED = -1;

    /**
     * Emits at most {@code max} records into {@code out}.
     *
     * @return the number emitted (0 when nothing is ready now), or {@link #EXHAUSTED}
     */
    int read(int max, Emitter<? super T> out);

    /** The position of the next record to emit; while {@code emit} runs, the record being emitted. */
    long position();

    void seek(long position);
}
