package air.runtime.api;

import java.util.List;

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

    /**
     * Resumes onto another layout (a checkpoint or savepoint of the job restored with other
     * peers or workers): the readers of the earlier layouts emitted what they emitted, and this
     * reader — created for its instance and parallelism as usual — emits exactly its share of
     * the rest. Each entry of {@code earlierLayouts}, oldest first, holds one earlier layout's
     * positions, indexed by its instances, where each of its readers stopped; a layout's position
     * means what {@link #position} meant for its reader. Called once, before any read; a
     * {@link #seek} may follow (a restart of the new layout, with the same earlier layouts).
     *
     * @throws UnsupportedOperationException when this source cannot split or merge its positions (the default)
     */
    default void resumeAfter(List<long[]> earlierLayouts) {
        throw new UnsupportedOperationException("its reader (" + getClass().getSimpleName() + ") cannot resume onto another number "
                + "of instances: it does not implement SourceReader.resumeAfter");
    }

    /** Called once by the engine before any restore or read: which instance this is, and of what job. */
    default void open(SourceContext context) {
    }

    /**
     * Where the record being emitted (or the next one) comes from, for error messages and dead
     * letters: {@code clicks.json:17}, {@code topic-3@1042}. The default names the position.
     */
    default String describePosition() {
        return "record at position " + position();
    }

    /** Called once after the reader was exhausted and its last state taken: flush and release files, sockets, clients. */
    default void close() {
    }

    /** Called instead of {@link #close} when the job failed or was cancelled: release everything, keep nothing half-written. */
    default void abort() {
    }
}
