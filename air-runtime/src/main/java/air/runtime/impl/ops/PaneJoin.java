package air.runtime.impl.ops;

import air.runtime.api.Timestamped;
import air.runtime.api.WindowDefinition;
import air.runtime.api.WindowResult;
import air.runtime.impl.routing.WindowRouter;
import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.runtime.plan.OperatorInfo;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the joins over time ranges share ({@link IntervalJoinOp}, {@link LookupJoinOp}): each
 * side's partials (per key, lists of timestamped records per pane) merge into that side's pane
 * frames; progress fires the panes it completes on both sides together, and the join gets them
 * pane by pane, oldest first, per key. A pane ends on a multiple of its length, so everything with
 * a time below {@link #firedBelow} has been handed over.
 */
final class PaneJoin {

    /** What the join does with the panes one call completed, oldest first. */
    interface Panes {
        void onPane(long start, Map<Object, List<Timestamped<Object>>> left, Map<Object, List<Timestamped<Object>>> right);
    }

    private final WindowFrames<Object> left;
    private final WindowFrames<Object> right;
    private final long pane;
    private final TreeMap<Long, Fired> fired = new TreeMap<>();
    private final Side leftSide = new Side(true);
    private final Side rightSide = new Side(false);
    private long firedBelow = Long.MIN_VALUE;

    @SuppressWarnings("unchecked")
    PaneJoin(OperatorInfo info, WindowDefinition panes, WindowRouter router, int instance, int instances, KeyedFrameFactory<?> leftFrames,
             ShuffleItemCodec leftCodec, KeyedFrameFactory<?> rightFrames, ShuffleItemCodec rightCodec) {
        this.left = new WindowFrames<>(info, panes, (KeyedFrameFactory<Object>) leftFrames, leftCodec, router, instance, instances);
        this.right = new WindowFrames<>(info, panes, (KeyedFrameFactory<Object>) rightFrames, rightCodec, router, instance, instances);
        this.pane = panes.size();
    }

    void merge(int input, FrameAccumulators partial) {
        (input == 0 ? left : right).merge(partial);
    }

    /** Fires every pane complete below {@code completeBelow} on both sides and hands them to {@code panes}, oldest first. */
    void progress(long completeBelow, Panes panes) {
        left.progress(completeBelow, leftSide);
        right.progress(completeBelow, rightSide);
        firedBelow = paneFloor(completeBelow);
        while (!fired.isEmpty()) {
            Map.Entry<Long, Fired> e = fired.pollFirstEntry();
            panes.onPane(e.getKey(), e.getValue().left, e.getValue().right);
        }
    }

    /** The start of the pane holding {@code time}: everything below it has fired once progress reached {@code time}. */
    long paneFloor(long time) {
        if (time == Long.MAX_VALUE || time < Long.MIN_VALUE + pane) {
            return time == Long.MAX_VALUE ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
        return Math.floorDiv(time, pane) * pane;
    }

    /** Every record with a time below this has been handed to the join. */
    long firedBelow() {
        return firedBelow;
    }

    void requireEmpty() {
        left.requireEmpty();
        right.requireEmpty();
    }

    long oldestPending(long completeBelow) {
        return Math.min(left.oldestPending(completeBelow), right.oldestPending(completeBelow));
    }

    void snapshotTo(WireOut out) {
        out.putLong(firedBelow);
        left.snapshotTo(out);
        right.snapshotTo(out);
    }

    void restoreFrom(WireIn in) {
        firedBelow = in.getLong();
        left.restoreFrom(in);
        right.restoreFrom(in);
    }

    private PaneJoin(WindowFrames<Object> left, WindowFrames<Object> right, long pane) {
        this.left = left;
        this.right = right;
        this.pane = pane;
    }

    /** Panes like these, empty: what a restore onto another layout reads an earlier instance's into. */
    PaneJoin emptyCopy() {
        return new PaneJoin(left.emptyCopy(), right.emptyCopy(), pane);
    }

    /**
     * Restore onto another layout: this instance's share of each side's panes of the earlier
     * instances (null where one saved none), and the lowest of their fired-below marks.
     */
    void restoreShares(List<PaneJoin> earlier) {
        List<WindowFrames<Object>> lefts = new ArrayList<>(earlier.size());
        List<WindowFrames<Object>> rights = new ArrayList<>(earlier.size());
        long lowest = Long.MAX_VALUE;
        for (PaneJoin e : earlier) {
            lefts.add(e == null ? null : e.left);
            rights.add(e == null ? null : e.right);
            if (e != null) {
                lowest = Math.min(lowest, e.firedBelow);
            }
        }
        left.restoreShares(lefts);
        right.restoreShares(rights);
        if (lowest != Long.MAX_VALUE) {
            firedBelow = lowest;
        }
    }

    /** One pane's records of both sides, by key. */
    private static final class Fired {
        final Map<Object, List<Timestamped<Object>>> left = new HashMap<>();
        final Map<Object, List<Timestamped<Object>>> right = new HashMap<>();
    }

    /** Where one side's fired panes go: finished per key (a list of timestamped records) into {@link #fired}. */
    private final class Side implements WindowFrames.Fired<Object>, Inlet<WindowResult<?, ?>> {
        private final boolean isLeft;
        private Map<Object, List<Timestamped<Object>>> target;

        Side(boolean isLeft) {
            this.isLeft = isLeft;
        }

        @Override
        public void onWindow(long start, long end, KeyedFrame<Object> frame) {
            Fired f = fired.computeIfAbsent(start, s -> new Fired());
            target = isLeft ? f.left : f.right;
            frame.emitResults(start, end, this);
        }

        @Override
        @SuppressWarnings("unchecked")
        public void accept(long timestamp, WindowResult<?, ?> result) {
            target.put(result.key(), (List<Timestamped<Object>>) result.value());
        }

        @Override public void emit(WindowResult<?, ?> result) { accept(NO_TIMESTAMP, result); }
        @Override public void onWatermark(long watermark) { }
        @Override public void onEndOfBatch() { }
        @Override public void onComplete() { }
    }
}
