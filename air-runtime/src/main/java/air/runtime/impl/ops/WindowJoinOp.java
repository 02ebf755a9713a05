package air.runtime.impl.ops;

import air.runtime.api.JoinFunction;
import air.runtime.api.JoinType;
import air.runtime.api.WindowDefinition;
import air.runtime.api.WindowResult;
import air.runtime.impl.failure.OperatorFailure;
import air.runtime.impl.routing.WindowRouter;
import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.runtime.operator.Operator;
import air.runtime.operator.Rescale;
import air.runtime.plan.OperatorInfo;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The final half of a window join (co-group), an {@link Operator} with two inputs: input 0's
 * partials merge into the left side's frames, input 1's into the right's ({@link WindowFrames}
 * each). Both sides are windowed, keyed and routed alike, so a (window, key) of either side is
 * finalised here. When progress (complete on both inputs) fires a window, each side's results
 * are finished per key and the user's function joins them per key, as the join type says.
 * Results carry event time {@code end - 1}, like a window aggregation's.
 */
public final class WindowJoinOp implements Operator, Counted, WindowStats {

    private final OperatorInfo info;
    private final WindowFrames<Object> left;
    private final WindowFrames<Object> right;
    private final JoinType type;
    private final JoinFunction<Object, Object, Object, Object> joinFn;
    private final Inlet<? super WindowResult<?, ?>> next;
    /** The windows fired by the call under way, per side: window start to its results by key. */
    private final TreeMap<Long, Fired> fired = new TreeMap<>();
    private final Side leftSide = new Side(true);
    private final Side rightSide = new Side(false);
    private long received;
    private long results;

    @SuppressWarnings("unchecked")
    public WindowJoinOp(OperatorInfo info, WindowDefinition window, WindowRouter router, int instance, int instances,
                        KeyedFrameFactory<?> leftFrames, ShuffleItemCodec leftCodec, KeyedFrameFactory<?> rightFrames,
                        ShuffleItemCodec rightCodec, JoinType type, JoinFunction<?, ?, ?, ?> joinFn, Inlet<? super WindowResult<?, ?>> next) {
        this.info = info;
        this.left = new WindowFrames<>(info, window, (KeyedFrameFactory<Object>) leftFrames, leftCodec, router, instance, instances);
        this.right = new WindowFrames<>(info, window, (KeyedFrameFactory<Object>) rightFrames, rightCodec, router, instance, instances);
        this.type = type;
        this.joinFn = (JoinFunction<Object, Object, Object, Object>) joinFn;
        this.next = next;
    }

    @Override
    public void onItem(int input, Object item) {
        received++;
        if (input == 0) {
            left.merge((FrameAccumulators) item);
        } else {
            right.merge((FrameAccumulators) item);
        }
    }

    @Override
    public void onEpochComplete(long epoch) {
        left.epochComplete(epoch, leftSide);
        right.epochComplete(epoch, rightSide);
        emitFired();
    }

    @Override
    public void onProgress(long completeBelow) {
        left.progress(completeBelow, leftSide);
        right.progress(completeBelow, rightSide);
        emitFired();
    }

    /** Joins every window the sides fired, oldest first; a side that fired nothing for a window had no record in it. */
    private void emitFired() {
        while (!fired.isEmpty()) {
            Fired w = fired.pollFirstEntry().getValue();
            for (Map.Entry<Object, Object> e : w.left.entrySet()) {
                boolean both = w.right.containsKey(e.getKey()); // a side's result may itself be null
                Object r = w.right.remove(e.getKey());
                if (both || type.keepsLeftOnly()) {
                    emit(w, e.getKey(), e.getValue(), r);
                }
            }
            if (type.keepsRightOnly()) {
                for (Map.Entry<Object, Object> e : w.right.entrySet()) {
                    emit(w, e.getKey(), null, e.getValue());
                }
            }
        }
    }

    private void emit(Fired w, Object key, Object l, Object r) {
        Object out;
        try {
            out = joinFn.apply(key, l, r);
        } catch (RuntimeException e) {
            throw new OperatorFailure(info, "join function threw on key " + OperatorFailure.preview(key) + " of window [" + w.start + ", "
                    + w.end + ")", e);
        }
        if (out == null) {
            throw new OperatorFailure(info, "join function returned null for key " + OperatorFailure.preview(key),
                    new NullPointerException("join functions must not return null"));
        }
        results++;
        next.accept(w.end - 1, new WindowResult<>(w.start, w.end, key, out));
    }

    @Override
    public void onEndOfInput() {
        left.requireEmpty();
        right.requireEmpty();
    }

    @Override
    public long oldestPending(long completeBelow) {
        return Math.min(left.oldestPending(completeBelow), right.oldestPending(completeBelow));
    }

    @Override
    public void snapshotTo(WireOut out, long checkpointId) {
        out.putLong(received).putLong(results);
        left.snapshotTo(out);
        right.snapshotTo(out);
    }

    @Override
    public void restoreFrom(WireIn in) {
        received = in.getLong();
        results = in.getLong();
        left.restoreFrom(in);
        right.restoreFrom(in);
    }

    /**
     * Onto another layout: both sides' frames of every earlier instance are read, and this instance
     * keeps its share of each ({@link WindowFrames#restoreShares}); the counters sum those of the
     * earlier instances it takes.
     */
    @Override
    public void restoreRescaled(Rescale rescale) {
        List<WindowFrames<Object>> lefts = new ArrayList<>(rescale.instancesBefore());
        List<WindowFrames<Object>> rights = new ArrayList<>(rescale.instancesBefore());
        long in = 0;
        long out = 0;
        for (int i = 0; i < rescale.instancesBefore(); i++) {
            WireIn w = rescale.newest(i); // whole in every checkpoint
            if (w == null) {
                lefts.add(null);
                rights.add(null);
                continue;
            }
            long r = w.getLong();
            long n = w.getLong();
            WindowFrames<Object> l = left.emptyCopy();
            l.restoreFrom(w);
            WindowFrames<Object> rt = right.emptyCopy();
            rt.restoreFrom(w);
            lefts.add(l);
            rights.add(rt);
            if (rescale.takes(i)) {
                in += r;
                out += n;
            }
        }
        left.restoreShares(lefts);
        right.restoreShares(rights);
        received = in;
        results = out;
    }

    @Override public long received() { return received; }
    @Override public long results() { return results; }
    @Override public OperatorInfo info() { return info; }

    /** One fired window: each side's results by key, in the order its frame holds them. */
    private static final class Fired {
        final long start;
        final long end;
        final Map<Object, Object> left = new LinkedHashMap<>();
        final Map<Object, Object> right = new LinkedHashMap<>();

        Fired(long start, long end) {
            this.start = start;
            this.end = end;
        }
    }

    /** Where one side's fired windows go: finished per key into {@link #fired}. */
    private final class Side implements WindowFrames.Fired<Object>, Inlet<WindowResult<?, ?>> {
        private final boolean isLeft;
        private Map<Object, Object> target;

        Side(boolean isLeft) {
            this.isLeft = isLeft;
        }

        @Override
        public void onWindow(long start, long end, KeyedFrame<Object> frame) {
            Fired w = fired.computeIfAbsent(start, s -> new Fired(start, end));
            target = isLeft ? w.left : w.right;
            frame.emitResults(start, end, this);
        }

        @Override
        public void accept(long timestamp, WindowResult<?, ?> result) {
            target.put(result.key(), result.value());
        }

        @Override public void emit(WindowResult<?, ?> result) { accept(NO_TIMESTAMP, result); }
        @Override public void onWatermark(long watermark) { }
        @Override public void onEndOfBatch() { }
        @Override public void onComplete() { }
    }
}
