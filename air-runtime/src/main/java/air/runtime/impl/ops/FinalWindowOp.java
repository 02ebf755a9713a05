package air.runtime.impl.ops;

import air.runtime.api.WindowDefinition;
import air.runtime.api.WindowResult;
import air.runtime.impl.routing.WindowRouter;
import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.runtime.operator.Operator;
import air.runtime.operator.Rescale;
import air.runtime.plan.OperatorInfo;
import air.wire.WireIn;
import air.wire.WireOut;

/**
 * The final half of a window aggregation, an {@link Operator}: merges the partials it receives
 * into frames ({@link WindowFrames}) and emits one result per key for every window progress
 * completes. It knows neither the progress mode nor the routing.
 */
public final class FinalWindowOp<T> implements Operator, Counted, WindowStats, WindowFrames.Fired<T> {

    private final OperatorInfo info;
    private final WindowFrames<T> frames;
    private final Inlet<? super WindowResult<?, ?>> next;
    private long received;
    private long results;

    public FinalWindowOp(OperatorInfo info, WindowDefinition window, WindowRouter router, int instance, int instances,
                         KeyedFrameFactory<T> frames, ShuffleItemCodec codec, Inlet<? super WindowResult<?, ?>> next) {
        this.info = info;
        this.frames = new WindowFrames<>(info, window, frames, codec, router, instance, instances);
        this.next = next;
    }

    @Override
    public void onItem(int input, Object item) {
        received++;
        frames.merge((FrameAccumulators) item);
    }

    @Override
    public void onEpochComplete(long epoch) {
        frames.epochComplete(epoch, this);
    }

    @Override
    public void onProgress(long completeBelow) {
        frames.progress(completeBelow, this);
    }

    /** A window fired: one result per key. */
    @Override
    public void onWindow(long start, long end, KeyedFrame<T> frame) {
        results += frame.size();
        frame.emitResults(start, end, next);
    }

    @Override
    public void onEndOfInput() {
        frames.requireEmpty();
    }

    @Override
    public long oldestPending(long completeBelow) {
        return frames.oldestPending(completeBelow);
    }

    @Override
    public long received() {
        return received;
    }

    @Override
    public long results() {
        return results;
    }

    @Override
    public OperatorInfo info() {
        return info;
    }

    @Override
    public void snapshotTo(WireOut out, long checkpointId) {
        out.putLong(received).putLong(results);
        frames.snapshotTo(out);
    }

    @Override
    public void restoreFrom(WireIn in) {
        received = in.getLong();
        results = in.getLong();
        frames.restoreFrom(in);
    }

    /**
     * Onto another layout: every earlier instance's frames are read whole, and this instance keeps
     * the share it owns now ({@link WindowFrames#restoreShares}); the counters of the earlier
     * instances it takes ({@link Rescale#takes}) are summed, so that the job's totals stay right.
     */
    @Override
    public void restoreRescaled(Rescale rescale) {
        long[] counters = frames.restoreRescaled(rescale, 2);
        received = counters[0];
        results = counters[1];
    }

    @Override
    public boolean snapshotChangesTo(WireOut out, long checkpointId) {
        out.putLong(received).putLong(results);
        frames.snapshotChangesTo(out);
        return true;
    }

    @Override
    public void restoreChanges(WireIn in) {
        received = in.getLong();
        results = in.getLong();
        frames.restoreChanges(in);
    }
}
