package air.runtime.impl.ops;

import air.runtime.api.WindowResult;
import air.runtime.impl.shuffle.DrainableFrame;
import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.wire.WireOut;

/**
 * The per-key accumulators of one frame (a slide-long pane of event time). The partial stage
 * accumulates records and drains partials (what a router asks of it, {@link DrainableFrame}); the
 * final stage merges partials and emits results.
 */
public interface KeyedFrame<T> extends DrainableFrame {

    void accumulate(T item);

    boolean isEmpty();

    int size();

    /**
     * A partial over this frame's live accumulators, to be encoded at once and dropped (checkpoints):
     * nothing is copied, so it must not be sent or merged.
     */
    FrameAccumulators view(long frameStart);

    /**
     * Writes this frame as {@code codec} writes a regular partial of {@code frameStart} (what
     * {@link FrameSnapshots#read} reads back), straight from the live accumulators: a checkpoint
     * of a large frame allocates nothing per entry and no array of the frame's size.
     */
    default void writeSnapshot(long frameStart, ShuffleItemCodec codec, WireOut out) {
        codec.write(0, view(frameStart), out);
    }

    /** Combines a partial's accumulators into this frame; the partial is not used afterwards. */
    void merge(FrameAccumulators partial);

    /** Combines this frame's accumulators into {@code target} without changing them (sliding windows). */
    void combineInto(KeyedFrame<T> target);

    /** Finishes every accumulator and emits one result per key. */
    void emitResults(long start, long end, Inlet<? super WindowResult<?, ?>> next);
}
