package air.runtime.impl.ops;

import air.runtime.api.WindowDefinition;
import air.runtime.api.WindowResult;
import air.runtime.api.WindowTopK;
import air.runtime.impl.failure.OperatorFailure;
import air.runtime.impl.routing.WindowRouter;
import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.runtime.operator.Operator;
import air.runtime.operator.Rescale;
import air.runtime.plan.OperatorInfo;
import air.runtime.plan.WindowOutput;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The final half of a keyed top-k per window, an {@link Operator}: merges the partials of the
 * unchanged partial side into frames, like {@link FinalWindowOp}, and emits per window it owns one
 * {@link WindowTopK}, the n keys with the greatest results (ties: the smaller key first when keys
 * are comparable). Ranking needs every key of a window on one instance: AIR routing, which the
 * planner requires. Like every operator it knows neither the progress mode nor checkpoints.
 */
public final class TopKWindowOp<T> implements Operator, Counted, WindowStats, WindowFrames.Fired<T> {

    private final OperatorInfo info;
    private final WindowFrames<T> frames;
    private final Inlet<? super WindowTopK<?, ?>> next;
    private final int n;
    private final PriorityQueue<WindowResult<Object, Object>> kept; // the best n of one window so far, the worst at the head
    private final Ranker ranker = new Ranker();
    private long received, results;

    @SuppressWarnings("unchecked")
    public TopKWindowOp(OperatorInfo info, WindowDefinition window, WindowRouter router, int instance, int instances,
                        KeyedFrameFactory<T> frames, ShuffleItemCodec codec, WindowOutput.TopK topK, Inlet<? super WindowTopK<?, ?>> next) {
        this.info = info;
        this.frames = new WindowFrames<>(info, window, frames, codec, router, instance, instances);
        this.next = next;
        this.n = topK.n();
        Comparator<Object> byResult = (Comparator<Object>) topK.comparator();
        this.kept = new PriorityQueue<>(n + 1, (a, b) -> {
            int c = byResult.compare(a.value(), b.value());
            return c != 0 || !(a.key() instanceof Comparable<?> k) ? c : -((Comparable<Object>) k).compareTo(b.key());
        });
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

    /** A window fired (one this instance owns): ranks its keys and emits the best n. */
    @Override
    public void onWindow(long start, long end, KeyedFrame<T> frame) {
        if (frame.isEmpty()) {
            return;
        }
        frame.emitResults(start, end, ranker);
        @SuppressWarnings("unchecked")
        WindowResult<Object, Object>[] best = (WindowResult<Object, Object>[]) new WindowResult<?, ?>[kept.size()];
        for (int i = best.length - 1; i >= 0; i--) {
            best[i] = kept.poll(); // the worst first
        }
        results++;
        next.accept(end - 1, new WindowTopK<>(start, end, List.of(best)));
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

    /** Onto another layout: this instance's share of every earlier instance's frames ({@link WindowFrames#restoreRescaled}). */
    @Override
    public void restoreRescaled(Rescale rescale) {
        long[] counters = frames.restoreRescaled(rescale, 2);
        received = counters[0];
        results = counters[1];
    }

    @Override public long received() { return received; }
    @Override public long results() { return results; }
    @Override public OperatorInfo info() { return info; }

    /** Where a frame's results go while one window is ranked: into {@link #kept}, the worst dropped past n. */
    private final class Ranker implements Inlet<WindowResult<?, ?>> {
        @Override
        @SuppressWarnings("unchecked")
        public void accept(long timestamp, WindowResult<?, ?> result) {
            try {
                kept.add((WindowResult<Object, Object>) result);
                if (kept.size() > n) {
                    kept.poll();
                }
            } catch (RuntimeException e) {
                kept.clear();
                throw new OperatorFailure(info, "comparator threw on " + OperatorFailure.preview(result), e);
            }
        }

        @Override public void emit(WindowResult<?, ?> result) { accept(NO_TIMESTAMP, result); }
        @Override public void onWatermark(long watermark) { }
        @Override public void onEndOfBatch() { }
        @Override public void onComplete() { }
    }
}
