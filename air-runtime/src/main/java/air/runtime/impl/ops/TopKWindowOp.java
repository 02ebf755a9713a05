package air.runtime.impl.ops;

import air.runtime.api.WindowDefinition;
import air.runtime.api.WindowResult;
import air.runtime.api.WindowTopK;
import air.runtime.impl.routing.WindowRouter;
import air.runtime.operator.Operator;
import air.runtime.plan.OperatorInfo;
import air.runtime.plan.WindowOutput;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.TreeMap;

/**
 * The final half of a keyed top-k per window, an {@link Operator}: merges the partials of the
 * unchanged partial side into frames, like {@link FinalWindowOp}, and emits per window it owns one
 * {@link WindowTopK}, the n keys with the greatest results (ties: the smaller key first when keys
 * are comparable). Ranking needs every key of a window on one instance: AIR routing, which the
 * planner requires. Like every operator it knows neither the progress mode nor checkpoints.
 */
public final class TopKWindowOp<T> implements Operator, Counted, WindowStats {

    private final OperatorInfo info;
    private final WindowDefinition window;
    private final WindowRouter router;
    private final int instance, instances;
    private final KeyedFrameFactory<T> frames;
    private final ShuffleItemCodec codec;
    private final Inlet<? super WindowTopK<?, ?>> next;
    private final int n;
    private final PriorityQueue<WindowResult<Object, Object>> kept; // the best n of one window so far, the worst at the head
    private final Ranker ranker = new Ranker();
    /** The state: open frames by start, and the end of the last window progress emitted. */
    private final TreeMap<Long, KeyedFrame<T>> open = new TreeMap<>();
    private long lastEmittedEnd = Long.MIN_VALUE;
    private long received, results;

    @SuppressWarnings("unchecked")
    public TopKWindowOp(OperatorInfo info, WindowDefinition window, WindowRouter router, int instance, int instances,
                        KeyedFrameFactory<T> frames, ShuffleItemCodec codec, WindowOutput.TopK topK, Inlet<? super WindowTopK<?, ?>> next) {
        this.info = info;
        this.window = window;
        this.router = router;
        this.instance = instance;
        this.instances = instances;
        this.frames = frames;
        this.codec = codec;
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
        FramePartial partial = (FramePartial) item;
        open.computeIfAbsent(partial.frameStart(), s -> frames.create()).merge(partial);
    }

    /** Hew-meld: a tumbling epoch is its window, ranked the moment it completes. */
    @Override
    public void onEpochComplete(long epoch) {
        KeyedFrame<T> frame = window.isTumbling() ? open.remove(epoch) : null;
        if (frame != null) {
            emit(epoch, epoch + window.size(), frame);
        }
    }

    /** Ranks every window this instance owns whose end is {@code <= completeBelow}, oldest first. */
    @Override
    public void onProgress(long completeBelow) {
        while (!open.isEmpty()) {
            long end = Math.max(lastEmittedEnd, open.firstKey()) + window.slide();
            if (end > completeBelow) {
                return;
            }
            long start = end - window.size();
            if (router.emits(start, instance, instances)) {
                KeyedFrame<T> sum = frames.create();
                open.subMap(start, end).values().forEach(f -> f.combineInto(sum));
                emit(start, end, sum);
            }
            open.headMap(end + window.slide() - window.size()).clear(); // frames no later window needs
            lastEmittedEnd = end;
        }
    }

    private void emit(long start, long end, KeyedFrame<T> frame) {
        if (frame.isEmpty()) {
            return;
        }
        frame.emitResults(start, end, ranker);
        @SuppressWarnings("unchecked")
        WindowResult<Object, Object>[] best = new WindowResult[kept.size()];
        for (int i = best.length - 1; i >= 0; i--) {
            best[i] = kept.poll(); // the worst first
        }
        results++;
        next.accept(end - 1, new WindowTopK<>(start, end, List.of(best)));
    }

    @Override
    public void onEndOfInput() {
        if (!open.isEmpty()) {
            throw new IllegalStateException(info.name() + ": every producer ended but frames " + open.keySet()
                    + " were never completed by progress");
        }
    }

    @Override
    public long oldestPending(long completeBelow) {
        Long first = open.ceilingKey(window.isTumbling() ? Long.MIN_VALUE : completeBelow);
        return first == null ? Long.MAX_VALUE : first;
    }

    @Override
    public void snapshotTo(WireOut out, long checkpointId) {
        out.putLong(lastEmittedEnd).putLong(received).putLong(results).putInt(open.size());
        open.forEach((start, frame) -> FrameSnapshots.write(out, start, frame, codec));
    }

    @Override
    public void restoreFrom(WireIn in) {
        lastEmittedEnd = in.getLong();
        received = in.getLong();
        results = in.getLong();
        open.clear();
        for (int k = in.getCount(1); k > 0; k--) {
            FramePartial p = FrameSnapshots.read(in, codec);
            open.computeIfAbsent(p.frameStart(), s -> frames.create()).merge(p);
        }
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
