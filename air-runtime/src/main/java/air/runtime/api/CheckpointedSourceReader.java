package air.runtime.api;

import java.util.List;

/**
 * A source reader whose position is not one number: per-partition offsets, a file and a byte
 * offset in it, a set of splits with a position each. Its state is opaque bytes that the engine
 * keeps in checkpoints and replica copies and hands back on a restore or a takeover; the
 * {@code long} position of {@link SourceReader} is then only a count of records, for diagnostics.
 *
 * <p>Contract: after {@link #restoreState(byte[]) restoreState(s)} the reader emits exactly what it
 * emitted after {@link #snapshotState} returned {@code s}. Both are called on the reader's
 * thread between two reads.
 */
public interface CheckpointedSourceReader<T> extends SourceReader<T> {

    /** Everything needed to resume after the records emitted so far, for checkpoint {@code checkpointId} (0: its last state, as it ended). */
    byte[] snapshotState(long checkpointId);

    /** Back to a {@link #snapshotState} of this instance (a restart or a takeover), before any read. */
    void restoreState(byte[] state);

    /**
     * Resumes onto another layout: {@code earlierInstances} holds the newest state of every
     * instance of the layout that wrote the checkpoint, by instance (null for an instance that
     * saved none); this reader takes its share of what they had left, reading nothing twice and
     * skipping nothing. Called once, before any read.
     */
    void restoreRescaled(long checkpointId, List<byte[]> earlierInstances);

    /** Records emitted since this reader was created (not restored): diagnostics only. */
    @Override
    long position();

    /** Opaque readers resume through {@link #restoreState}; a numeric seek is a misuse. */
    @Override
    default void seek(long position) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " resumes from its snapshot state, not from a position number");
    }

    /** Opaque readers resume through {@link #restoreRescaled}. */
    @Override
    default void resumeAfter(List<long[]> earlierLayouts) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " resumes through restoreRescaled, not from position numbers");
    }
}
