package air.runtime.impl.ops;

import air.hewmeld.watermark.LowWatermarkTracker;
import air.runtime.api.WindowDefinition;
import air.runtime.api.WindowResult;
import air.hewmeld.CreditLedger;
import air.runtime.plan.OperatorInfo;
import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * The final half of a keyed window aggregation: merges the partials of the keys it owns and, when
 * the low watermark over all upstream instances passes a window's end (or, under hew-meld, when
 * every epoch of the window holds exactly ONE), emits one result per key and releases the frames
 * no later window needs.
 */
public final class FinalWindowOp<T> implements Counted, WindowFinal, Snapshotting {

    private final OperatorInfo info;
    private final WindowDefinition window;
    private final KeyedFrameFactory<T> frames;
    private final Inlet<? super WindowResult<?, ?>> next;
    private final LowWatermarkTracker progress;
    private final Routing routing;
    private final int instance;
    private final int instances;
    private final CreditLedger ledger;
    private final long[] producerFrontier;
    private int producersDone;
    private long downstreamWatermark = Long.MIN_VALUE;
    private volatile ProgressSnapshot snapshot = ProgressSnapshot.IDLE;
    private final TreeMap<Long, KeyedFrame<T>> open = new TreeMap<>();
    private long lastEmittedEnd = Long.MIN_VALUE;
    private boolean completed;
    private long received;
    private long results;

    public FinalWindowOp(OperatorInfo info, WindowDefinition window, Routing routing, Progress progressMode, int instance,
                         int instances, KeyedFrameFactory<T> frames, int producers, Inlet<? super WindowResult<?, ?>> next) {
        this.info = info;
        this.ledger = progressMode == Progress.HEWMELD ? new CreditLedger(producers) : null;
        this.producerFrontier = new long[producers];
        java.util.Arrays.fill(producerFrontier, Long.MIN_VALUE);
        this.routing = routing;
        this.instance = instance;
        this.instances = instances;
        this.window = window;
        this.frames = frames;
        this.next = next;
        this.progress = new LowWatermarkTracker(producers);
    }

    @Override
    public boolean onItem(ShuffleItem item) {
        if (completed) {
            return true; // under watermarks the last producer's end of stream can follow the completing watermark
        }
        boolean done = handle(item);
        completed = done;
        long oldest = oldestOpen();
        // progress only moves on control items; a partial only matters when it opens an older epoch
        if (done || !(item instanceof FramePartial) || oldest != snapshot.oldestOpenEpoch()) {
            snapshot = done || oldest == Long.MAX_VALUE ? ProgressSnapshot.IDLE : new ProgressSnapshot(oldest, holdingBack());
        }
        return done;
    }

    /** The oldest epoch not yet complete here (frames kept for later sliding windows are complete). */
    private long oldestOpen() {
        if (ledger == null) {
            return open.isEmpty() ? Long.MAX_VALUE : open.firstKey();
        }
        Long firstOpen = open.ceilingKey(window.isTumbling() ? Long.MIN_VALUE : completeBelow());
        return Math.min(ledger.oldestIncomplete(), firstOpen == null ? Long.MAX_VALUE : firstOpen);
    }

    private boolean handle(ShuffleItem item) {
        received++;
        if (item instanceof FramePartial partial) {
            frameAt(partial.frameStart).merge(partial);
            return false;
        }
        if (ledger != null) {
            return onCredit(item);
        }
        boolean advanced = item instanceof ShuffleItem.Watermark w
                ? progress.update(w.producer(), w.watermark())
                : progress.markDone(item.producer());
        if (advanced) {
            long wm = progress.combined();
            emitUpTo(wm == Long.MAX_VALUE ? Long.MAX_VALUE : wm + 1);
            next.onWatermark(wm);
            next.onEndOfBatch();
        }
        if (progress.allDone()) {
            next.onComplete();
            return true;
        }
        return false;
    }

    /** Hew-meld: melds credit and emits each epoch the moment it holds exactly ONE. */
    private boolean onCredit(ShuffleItem item) {
        int p = item.producer();
        switch (item) {
            case ShuffleItem.Credit c -> {
                producerFrontier[p] = Math.max(producerFrontier[p], c.epoch() + window.slide());
                if (ledger.add(c.epoch(), p, c.amount())) {
                    emitEpoch(c.epoch());
                }
            }
            case ShuffleItem.CreditRange r -> {
                producerFrontier[p] = Math.max(producerFrontier[p], r.to());
                for (long epoch : ledger.release(p, r.from(), r.to())) {
                    emitEpoch(epoch);
                }
            }
            case ShuffleItem.EndOfStream e -> {
                producerFrontier[p] = Long.MAX_VALUE;
                producersDone++;
            }
            default -> throw new IllegalStateException(info.name() + ": unexpected " + item + " under hew-meld progress");
        }
        long limit = completeBelow();
        if (!window.isTumbling()) {
            emitUpTo(limit);
        }
        long wm = limit == Long.MIN_VALUE || limit == Long.MAX_VALUE ? limit : limit - 1;
        if (wm > downstreamWatermark) {
            downstreamWatermark = wm;
            next.onWatermark(wm);
            next.onEndOfBatch();
        }
        if (producersDone == producerFrontier.length) {
            if (!open.isEmpty()) {
                throw new IllegalStateException(info.name() + ": every producer ended but epochs " + open.keySet()
                        + " never received all their credit (hew-meld protocol violated)");
            }
            next.onComplete();
            return true;
        }
        return false;
    }

    /**
     * Hew-meld: every epoch below this is complete here. Each producer releases in ascending order
     * and its channel is FIFO, so below its newest release this instance has heard of all it will
     * from it; below the least of those, only epochs still short of ONE are incomplete.
     */
    private long completeBelow() {
        long frontier = Long.MAX_VALUE;
        for (long f : producerFrontier) {
            frontier = Math.min(frontier, f);
        }
        return Math.min(frontier, ledger.oldestIncomplete());
    }

    /** A tumbling epoch is its window: emitted the moment it completes. Sliding windows wait for all their epochs. */
    private void emitEpoch(long epoch) {
        if (!window.isTumbling()) {
            return;
        }
        KeyedFrame<T> frame = open.remove(epoch);
        if (frame != null) {
            results += frame.size();
            frame.emitResults(epoch, epoch + window.size(), next);
        }
    }

    /** Upstream instances that still hold credit of the oldest incomplete epoch (or the watermark back). */
    private int[] holdingBack() {
        if (ledger == null) {
            return progress.holdingBack();
        }
        long oldest = oldestOpen();
        return oldest == Long.MAX_VALUE ? new int[0] : ledger.holders(oldest).stream().mapToInt(Integer::intValue).toArray();
    }

    private KeyedFrame<T> frameAt(long start) {
        KeyedFrame<T> frame = open.get(start);
        if (frame == null) {
            frame = frames.create();
            open.put(start, frame);
        }
        return frame;
    }

    /** Emits every window whose end is {@code <= limit}, oldest first. */
    private void emitUpTo(long limit) {
        long size = window.size();
        long slide = window.slide();
        while (!open.isEmpty()) {
            long oldest = open.firstKey();
            long end = window.isTumbling() || lastEmittedEnd == Long.MIN_VALUE
                    ? oldest + slide
                    : Math.max(lastEmittedEnd + slide, oldest + slide);
            if (end > limit) {
                return;
            }
            long start = end - size;
            if (window.isTumbling()) {
                KeyedFrame<T> frame = open.remove(oldest);
                results += frame.size();
                frame.emitResults(start, end, next);
            } else {
                if (owns(start)) {
                    KeyedFrame<T> sum = frames.create();
                    for (KeyedFrame<T> frame : open.subMap(start, true, end, false).values()) {
                        frame.combineInto(sum);
                    }
                    results += sum.size();
                    sum.emitResults(start, end, next);
                }
                evictBefore(end + slide - size);
            }
            lastEmittedEnd = end;
        }
    }

    /** Under AIR routing this instance receives frames of windows it does not own too: skip those. */
    private boolean owns(long windowStart) {
        return routing != Routing.AIR || AirRouting.ownerOfWindow(windowStart, window, instances) == instance;
    }

    private void evictBefore(long start) {
        Iterator<Map.Entry<Long, KeyedFrame<T>>> it = open.headMap(start, false).entrySet().iterator();
        while (it.hasNext()) {
            it.next();
            it.remove();
        }
    }

    @Override
    public long received() {
        return received;
    }

    @Override
    public long slide() {
        return window.slide();
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
    public ProgressSnapshot snapshot() {
        return snapshot;
    }

    @Override
    public void snapshotTo(air.wire.WireOut out, long checkpointId, ShuffleItemCodec codec) {
        out.putLong(lastEmittedEnd).putLong(received).putLong(results).putInt(producersDone).putLong(downstreamWatermark);
        out.putInt(producerFrontier.length);
        for (long f : producerFrontier) {
            out.putLong(f);
        }
        progress.snapshotTo(out);
        if (ledger != null) {
            ledger.snapshotTo(out);
        }
        out.putInt(open.size());
        for (Map.Entry<Long, KeyedFrame<T>> e : open.entrySet()) {
            FrameSnapshots.write(out, e.getKey(), e.getValue(), codec);
        }
    }

    @Override
    public void restoreFrom(air.wire.WireIn in, ShuffleItemCodec codec) {
        lastEmittedEnd = in.getLong();
        received = in.getLong();
        results = in.getLong();
        producersDone = in.getInt();
        downstreamWatermark = in.getLong();
        int producers = in.getCount(8);
        if (producers != producerFrontier.length) {
            throw in.malformed(info.name() + ": checkpointed state for " + producers + " producers, this instance has "
                    + producerFrontier.length);
        }
        for (int p = 0; p < producers; p++) {
            producerFrontier[p] = in.getLong();
        }
        progress.restoreFrom(in);
        if (ledger != null) {
            ledger.restoreFrom(in);
        }
        open.clear();
        for (int n = in.getCount(1); n > 0; n--) {
            FramePartial p = FrameSnapshots.read(in, codec);
            frameAt(p.frameStart).merge(p);
        }
        long oldest = oldestOpen();
        snapshot = oldest == Long.MAX_VALUE ? ProgressSnapshot.IDLE : new ProgressSnapshot(oldest, holdingBack());
    }
}
