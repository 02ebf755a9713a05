package air.runtime.impl.ops;

import air.runtime.api.WindowResult;
import air.wire.WireOut;

/**
 * A frame in two layers, for incremental checkpoints: records and partials go into a
 * <b>recent</b> layer, which holds only the keys touched since the last snapshot, on top of a
 * <b>base</b> layer with everything before. A snapshot of changes writes the recent layer alone
 * and folds it into the base ({@link #writeChanges}); since accumulators combine, a restore that
 * merges the whole frame and then each change, in order, gets the same accumulators. Everything
 * that reads the frame (shipping, results, copies) folds first, so the layers are invisible to it.
 * The per-record path is the inner frame's own, into a map of only the recent keys.
 */
public final class LayeredFrame<T> implements KeyedFrame<T> {

    private KeyedFrame<T> recent;
    private KeyedFrame<T> base;

    public LayeredFrame(KeyedFrameFactory<T> inner) {
        this.recent = inner.create();
        this.base = inner.create();
    }

    @Override
    public void accumulate(T item) {
        recent.accumulate(item);
    }

    @Override
    public boolean isEmpty() {
        return recent.isEmpty() && base.isEmpty();
    }

    @Override
    public int size() {
        fold();
        return base.size();
    }

    @Override
    public FramePartial[] drain(int producer, long frameStart, int destinations) {
        fold();
        return base.drain(producer, frameStart, destinations);
    }

    @Override
    public FramePartial drainAll(int producer, long frameStart) {
        fold();
        return base.drainAll(producer, frameStart);
    }

    @Override
    public FramePartial copyAll(int producer, long frameStart) {
        fold();
        return base.copyAll(producer, frameStart);
    }

    @Override
    public FramePartial view(long frameStart) {
        fold();
        return base.view(frameStart);
    }

    @Override
    public void merge(FramePartial partial) {
        recent.merge(partial);
    }

    @Override
    public void combineInto(KeyedFrame<T> target) {
        fold();
        base.combineInto(target instanceof LayeredFrame<T> l ? l.recent : target);
    }

    @Override
    public void emitResults(long start, long end, Inlet<? super WindowResult<?, ?>> next) {
        fold();
        base.emitResults(start, end, next);
    }

    /**
     * Writes the keys touched since the last snapshot with their accumulators over that span (a
     * partial of {@code frameStart}, in the wire form of {@code codec}), then folds them into the base.
     */
    @Override
    public void writeChanges(WireOut out, long frameStart, ShuffleItemCodec codec) {
        codec.write(0, recent.view(frameStart), out);
        fold();
    }

    /** Moves the recent layer into the base (by swapping them when the base is empty): the frame as a whole is unchanged. */
    private void fold() {
        if (recent.isEmpty()) {
            return;
        }
        if (base.isEmpty()) {
            KeyedFrame<T> empty = base;
            base = recent;
            recent = empty;
        } else {
            base.merge(recent.drainAll(0, 0));
        }
    }
}
