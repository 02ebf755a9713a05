package air.runtime.operator;

import air.wire.WireIn;
import air.wire.WireOut;

/**
 * A stateful operator behind one or more inbound edges: what the engine calls, in this order
 * and always on the operator's own tasklet thread, so an implementation needs no locks.
 *
 * <ul>
 *   <li>{@link #onItem} for every data item of input {@code i}. Barriers, repeats after a
 *       takeover, end-of-stream markers, watermarks and credit never reach it: the inbound edge
 *       handles them.</li>
 *   <li>{@link #onEpochComplete} (hew-meld only): one epoch is complete on every input, possibly
 *       before older ones; an operator that only cares about a frontier ignores it.</li>
 *   <li>{@link #onProgress}: nothing with an event time below {@code completeBelow} will arrive on
 *       any input. Monotone; the same call under watermarks and under hew-meld, so no operator
 *       tests the progress mode.</li>
 *   <li>{@link #onEndOfInput} once: every input ended; {@code onProgress(Long.MAX_VALUE)} came
 *       just before it, unless progress could not complete (then the engine fails the job).</li>
 *   <li>{@link #snapshotTo} / {@link #restoreFrom} between items, when a checkpoint is aligned
 *       on every input or when the job resumes ({@link #snapshotChangesTo} /
 *       {@link #restoreChanges} for an operator that can write only what changed).</li>
 *   <li>{@link #onIdle} between items, when no input came for {@link #idleWakeupNanos} (only for
 *       an operator that asks for it: processing-time timers).</li>
 * </ul>
 *
 * <p>Output goes to the {@link air.runtime.api.Emitter} the operator was built with; the engine
 * forwards progress and end of stream downstream itself. See {@code docs/how-to-add-an-operator.md}
 * (worked example: {@code impl/ops/TopKWindowOp}).
 */
public interface Operator {

    /** A data item from input {@code input} (0 for a single-input operator). */
    void onItem(int input, Object item);

    /** Hew-meld: the epoch starting at {@code epochStart} is complete on every input. */
    default void onEpochComplete(long epochStart) {
    }

    /** Every input is complete below {@code completeBelow} ({@code Long.MAX_VALUE}: input is over). */
    void onProgress(long completeBelow);

    /** Every input ended: emit what is left; throw if state is left that progress never released. */
    void onEndOfInput();

    /** Writes the whole state; {@code checkpointId} names the checkpoint (for sinks that commit by it). */
    void snapshotTo(WireOut out, long checkpointId);

    /** Reads back what {@link #snapshotTo} wrote; a mismatch throws {@code in.malformed(...)}. */
    void restoreFrom(WireIn in);

    /**
     * Incremental checkpoints: writes only what changed since the previous snapshot (whole or
     * not) and returns true; the default writes nothing and returns false, and the engine calls
     * {@link #snapshotTo} instead. Worth it for large state that changes a little per interval.
     */
    default boolean snapshotChangesTo(WireOut out, long checkpointId) {
        return false;
    }

    /** Applies what {@link #snapshotChangesTo} wrote, after {@link #restoreFrom} and the changes before it, in order. */
    default void restoreChanges(WireIn in) {
        throw new IllegalStateException(getClass().getSimpleName() + " writes whole snapshots only; it has no changes to restore");
    }

    /**
     * Restores this instance's share of the state every instance of an earlier layout saved (the
     * job resumed with other peers or workers), instead of {@link #restoreFrom}: keyed state is
     * split by the instance that owns each key now, other state merged ({@link Rescale}). The
     * default refuses: the job then fails on start, naming the operator, and its checkpoint stays.
     *
     * @throws UnsupportedOperationException when this operator's state cannot move to another layout
     */
    default void restoreRescaled(Rescale rescale) {
        throw new UnsupportedOperationException("its state cannot move to another number of instances yet");
    }

    /**
     * How far this operator's output is complete, given that every input is complete below
     * {@code completeBelow}: nothing it emits later has an event time below the result. The engine
     * forwards this, not the input's progress, downstream. An operator that emits only what
     * progress completes (a window's result at {@code end - 1}) keeps the default; one that holds
     * records back and emits them later with their own older times (an interval join) says less.
     */
    default long outputProgress(long completeBelow) {
        return completeBelow;
    }

    /**
     * How long, in nanoseconds of the machine's clock, the tasklet may wait for input before it
     * calls {@link #onIdle}: an operator with processing-time timers asks to be woken while no
     * input comes. {@code Long.MAX_VALUE} (the default): wait for input however long.
     */
    default long idleWakeupNanos() {
        return Long.MAX_VALUE;
    }

    /** No input came for {@link #idleWakeupNanos()}: a chance to fire processing-time timers (between items, like every call). */
    default void onIdle() {
    }

    /**
     * Diagnostics ("why is my window not firing?"): the oldest epoch start this operator holds
     * state for that waits on progress, given that everything below {@code completeBelow} is
     * complete; {@code Long.MAX_VALUE} when nothing waits.
     */
    default long oldestPending(long completeBelow) {
        return Long.MAX_VALUE;
    }
}
