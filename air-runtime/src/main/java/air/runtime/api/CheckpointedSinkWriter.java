package air.runtime.api;

import java.util.List;

/**
 * A sink writer whose output is exactly-once under checkpointing: what it has written up to a
 * checkpoint is captured by {@link #snapshot} (made durable, or returned as state), and after a
 * rollback {@link #restore} brings it back to that point, forgetting what was written after it.
 * Jobs with checkpoints refuse sinks that are not of this kind.
 */
public interface CheckpointedSinkWriter<T> extends SinkWriter<T> {

    /** Everything written so far, as state to restore; called on the writer's thread between writes. */
    byte[] snapshot(long checkpointId);

    /** Back to the state of a {@link #snapshot}: called before any write of a restarted job. */
    void restore(byte[] state);

    /**
     * Incremental checkpoints: what was written since the previous {@link #snapshot} or
     * {@code snapshotChanges} (say, the rows appended since), or {@code null} when this writer can
     * only give everything (the default; {@link #snapshot} is then called). A writer whose state
     * grows with its output should implement it: a checkpoint then costs what the interval wrote,
     * not the whole output so far.
     */
    default byte[] snapshotChanges(long checkpointId) {
        return null;
    }

    /** Applies what {@link #snapshotChanges} returned, after {@link #restore} and the changes before it, in order. */
    default void restoreChanges(byte[] changes) {
        throw new IllegalStateException(getClass().getName() + " gives whole snapshots only; it has no changes to restore");
    }

    /**
     * Restore onto another layout (the job resumed with other peers or workers), instead of
     * {@link #restore}: the output that the earlier instances this writer takes over wrote up to
     * checkpoint {@code checkpointId} — each earlier instance's {@link #snapshot}, then the changes
     * ({@link #snapshotChanges}) written after it, in order — to be merged into this writer's
     * state. Earlier instance {@code i} goes to instance {@code i mod instances}; an instance that
     * takes none gets an empty list and starts with no output. {@code checkpointId} is the same for
     * every writer of the new layout and differs between two restores onto layouts: a writer whose
     * output lives in files names its new ones after it, so that none meets an earlier layout's.
     * The default refuses.
     *
     * @throws UnsupportedOperationException when this writer's output cannot move to another number of instances
     */
    default void restoreRescaled(long checkpointId, List<List<byte[]>> earlier) {
        throw new UnsupportedOperationException("its writer (" + getClass().getName() + ") cannot take over the output of another "
                + "number of instances: it does not implement CheckpointedSinkWriter.restoreRescaled");
    }

    /**
     * Names this writer's owner, before its first write or restore (exactly-once jobs only). A
     * writer whose output lives outside the process should record it beside the output and refuse
     * every later write once a {@linkplain OwnerToken#newerThan newer} owner claimed the same
     * output; one whose output dies with the process can ignore it.
     */
    default void claim(OwnerToken owner) {
    }
}
