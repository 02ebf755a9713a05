package air.runtime.impl.ops;

import air.runtime.api.WindowDefinition;
import air.runtime.impl.routing.WindowRouter;
import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.runtime.operator.Rescale;
import air.runtime.plan.OperatorInfo;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The frames a final window operator holds and the rule that fires windows from them, shared by
 * every operator behind a window's shuffle ({@link FinalWindowOp}, {@link TopKWindowOp}): partials
 * merge into slide-long frames; a tumbling window fires when its epoch completes, any window once
 * progress passes its end; a sliding window sums the frames it spans and the frames no later
 * window needs are dropped. What a fired window becomes is the operator's ({@link Fired}).
 */
public final class WindowFrames<T> {

    /** What the operator makes of a fired window: {@code frame} holds its keys' accumulators. */
    public interface Fired<T> {
        void onWindow(long start, long end, KeyedFrame<T> frame);
    }

    private final OperatorInfo info;
    private final WindowDefinition window;
    private final KeyedFrameFactory<T> frames;
    private final ShuffleItemCodec codec;
    private final WindowRouter router;
    private final int instance;
    private final int instances;
    private final TreeMap<Long, KeyedFrame<T>> open = new TreeMap<>();
    private final FrameChanges changes = new FrameChanges();
    private long lastEmittedEnd = Long.MIN_VALUE;

    public WindowFrames(OperatorInfo info, WindowDefinition window, KeyedFrameFactory<T> frames, ShuffleItemCodec codec,
                        WindowRouter router, int instance, int instances) {
        this.info = info;
        this.window = window;
        this.frames = frames;
        this.codec = codec;
        this.router = router;
        this.instance = instance;
        this.instances = instances;
    }

    /** Merges a partial into its frame; the partial is not used afterwards. */
    public void merge(FrameAccumulators partial) {
        frameAt(partial.frameStart()).merge(partial);
        changes.touched(partial.frameStart());
    }

    /** Hew-meld: a tumbling epoch is its window, fired the moment it completes. Sliding windows wait for progress. */
    public void epochComplete(long epoch, Fired<T> fired) {
        if (!window.isTumbling()) {
            return;
        }
        KeyedFrame<T> frame = take(epoch);
        if (frame != null) {
            fired.onWindow(epoch, epoch + window.size(), frame);
        }
    }

    /** Fires every window whose end is {@code <= completeBelow} (under AIR routing, those this instance owns), oldest first. */
    public void progress(long completeBelow, Fired<T> fired) {
        long size = window.size();
        long slide = window.slide();
        while (!open.isEmpty()) {
            long oldest = open.firstKey();
            long end = window.isTumbling() || lastEmittedEnd == Long.MIN_VALUE
                    ? oldest + slide
                    : Math.max(lastEmittedEnd + slide, oldest + slide);
            if (end > completeBelow) {
                return;
            }
            long start = end - size;
            if (window.isTumbling()) {
                fired.onWindow(start, end, take(oldest));
            } else {
                if (router.emits(start, instance, instances)) {
                    KeyedFrame<T> sum = frames.create();
                    for (KeyedFrame<T> frame : open.subMap(start, true, end, false).values()) {
                        frame.combineInto(sum);
                    }
                    fired.onWindow(start, end, sum);
                }
                evictBefore(end + slide - size);
            }
            lastEmittedEnd = end;
        }
    }

    /** Every input ended: nothing may be left that progress never released. */
    public void requireEmpty() {
        if (!open.isEmpty()) {
            throw new IllegalStateException(info.name() + ": every producer ended but frames " + open.keySet()
                    + " were never completed by progress");
        }
    }

    /** Frames kept for later sliding windows are complete; the oldest other one waits. */
    public long oldestPending(long completeBelow) {
        Long first = open.ceilingKey(window.isTumbling() ? Long.MIN_VALUE : completeBelow);
        return first == null ? Long.MAX_VALUE : first;
    }

    private KeyedFrame<T> frameAt(long start) {
        KeyedFrame<T> frame = open.get(start);
        if (frame == null) {
            frame = frames.create();
            open.put(start, frame);
        }
        return frame;
    }

    private void evictBefore(long start) {
        Iterator<Map.Entry<Long, KeyedFrame<T>>> it = open.headMap(start, false).entrySet().iterator();
        while (it.hasNext()) {
            changes.gone(it.next().getKey());
            it.remove();
        }
    }

    /** Removes the frame of {@code start} (fired), with its mark. */
    private KeyedFrame<T> take(long start) {
        changes.gone(start);
        return open.remove(start);
    }

    /** An empty set of frames like this one: what a restore onto another layout reads an earlier instance's frames into. */
    public WindowFrames<T> emptyCopy() {
        return new WindowFrames<>(info, window, frames, codec, router, instance, instances);
    }

    /**
     * Restore onto another layout: this instance's share ({@link WindowRouter#shareOf}) of the
     * frames the earlier instances held, in their order (null where one held none). The earlier
     * frames are not used afterwards.
     */
    public void restoreShares(List<WindowFrames<T>> earlier) {
        open.clear();
        Set<Long> copied = new HashSet<>();
        for (WindowFrames<T> e : earlier) {
            if (e == null) {
                continue;
            }
            lastEmittedEnd = Math.max(lastEmittedEnd, e.lastEmittedEnd);
            for (Map.Entry<Long, KeyedFrame<T>> f : e.open.entrySet()) {
                FrameAccumulators share = router.shareOf(f.getKey(), f.getValue(), copied.add(f.getKey()), instance, instances);
                if (share != null && share.size() > 0) {
                    merge(share);
                }
            }
        }
        changes.snapshotTaken();
    }

    /**
     * Onto another layout, for an operator whose state is {@code counters} longs and then these
     * frames (whole, or changes after a whole state): reads every earlier instance's states into
     * frames of their own, keeps this instance's share ({@link #restoreShares}), and returns each
     * counter summed over the earlier instances this one takes ({@link Rescale#takes}).
     */
    public long[] restoreRescaled(Rescale rescale, int counters) {
        List<WindowFrames<T>> earlier = new ArrayList<>(rescale.instancesBefore());
        long[] sums = new long[counters];
        long[] newest = new long[counters];
        for (int i = 0; i < rescale.instancesBefore(); i++) {
            List<WireIn> states = rescale.states(i);
            if (states == null) {
                earlier.add(null);
                continue;
            }
            WindowFrames<T> e = emptyCopy();
            for (int k = 0; k < states.size(); k++) {
                WireIn in = states.get(k);
                for (int c = 0; c < counters; c++) {
                    newest[c] = in.getLong();
                }
                if (k == 0) {
                    e.restoreFrom(in);
                } else {
                    e.restoreChanges(in);
                }
            }
            if (rescale.takes(i)) {
                for (int c = 0; c < counters; c++) {
                    sums[c] += newest[c];
                }
            }
            earlier.add(e);
        }
        restoreShares(earlier);
        return sums;
    }

    public void snapshotTo(WireOut out) {
        out.putLong(lastEmittedEnd).putInt(open.size());
        for (Map.Entry<Long, KeyedFrame<T>> e : open.entrySet()) {
            FrameSnapshots.write(out, e.getKey(), e.getValue(), codec);
        }
        changes.snapshotTaken();
    }

    public void restoreFrom(WireIn in) {
        lastEmittedEnd = in.getLong();
        open.clear();
        for (int n = in.getCount(1); n > 0; n--) {
            merge(FrameSnapshots.read(in, codec));
        }
        changes.snapshotTaken();
    }

    /**
     * Incremental checkpoints: as {@link #snapshotTo}, but only the frames merged into since the
     * last snapshot are written whole, the others by their start ({@link FrameChanges}).
     */
    public void snapshotChangesTo(WireOut out) {
        out.putLong(lastEmittedEnd);
        long[] starts = new long[open.size()];
        int i = 0;
        for (long start : open.keySet()) {
            starts[i++] = start;
        }
        changes.write(out, starts, new ArrayList<>(open.values()), codec);
    }

    /** Applies what {@link #snapshotChangesTo} wrote: the frames listed stay open (written whole: replaced), the others are gone. */
    public void restoreChanges(WireIn in) {
        lastEmittedEnd = in.getLong();
        TreeMap<Long, KeyedFrame<T>> live = new TreeMap<>();
        for (FrameChanges.Entry e : FrameChanges.read(in, codec)) {
            live.put(e.start(), FrameChanges.restored(e, open.get(e.start()), frames, info));
        }
        open.clear();
        open.putAll(live);
        changes.snapshotTaken();
    }
}
