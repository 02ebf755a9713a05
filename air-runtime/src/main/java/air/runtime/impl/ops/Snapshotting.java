package air.runtime.impl.ops;

import air.runtime.operator.Rescale;
import air.wire.WireIn;
import air.wire.WireOut;

/**
 * An operator with state that a checkpoint captures. Both calls happen on the operator's own
 * tasklet thread between batches, so they see a quiet operator. An operator with window frames
 * holds the codec of their keys and accumulators itself. An operator with large state can also
 * write only what changed since its previous snapshot (incremental checkpoints); a restore then
 * gets the last full state and every change after it, in order.
 */
public interface Snapshotting {

    /** Writes the operator's whole state; what changed since is what the next {@link #snapshotChangesTo} writes. */
    void snapshotTo(WireOut out, long checkpointId);

    void restoreFrom(WireIn in);

    /**
     * Incremental checkpoints: writes only what changed since this operator's previous snapshot
     * (full or not) and returns true; an operator that can only write its whole state writes
     * nothing and returns false (the default), and {@link #snapshotTo} is called instead.
     */
    default boolean snapshotChangesTo(WireOut out, long checkpointId) {
        return false;
    }

    /** Applies changes {@link #snapshotChangesTo} wrote, after {@link #restoreFrom} and the changes before them, in order. */
    default void restoreChanges(WireIn in) {
        throw new IllegalStateException(getClass().getSimpleName() + " writes full snapshots only; it has no changes to restore");
    }

    /**
     * Restores this instance's share of the state that every instance of an earlier layout saved
     * (a job resumed with other peers or workers), instead of {@link #restoreFrom}. An operator
     * that cannot split or merge its state says so (the default): the job then fails on start,
     * naming the operator, and the checkpoint stays as it was.
     *
     * @throws UnsupportedOperationException when this operator's state cannot move to another layout
     */
    default void restoreRescaled(Rescale rescale) {
        throw new UnsupportedOperationException("its state cannot move to another number of instances yet");
    }
}
