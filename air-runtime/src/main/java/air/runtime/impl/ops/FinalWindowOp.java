package air.runtime.impl.ops;

import air.runtime.api.WindowDefinition;
import air.runtime.api.WindowResult;
import air.runtime.impl.routing.WindowRouter;
import air.runtime.operator.Operator;
import air.runtime.plan.OperatorInfo;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

/**
 * The final half of a window aggregation, an {@link Operator}: merges the partials it receives
 * into frames and emits one result per key for every window progress completes — a tumbling
 * window the moment its epoch completes (hew-meld) or once progress passes its end, a sliding
 * window once progress passes its end, keeping the frames later windows still need. It knows
 * neither the progress mode nor the routing: the router says which windows it emits.
 */
public final class FinalWindowOp<T> implements Operator, Counted, WindowStats {

    private final OperatorInfo info;
    private final WindowDefinition window;
    private final KeyedFrameFactory<T> frames;
    private final Inlet<? super WindowResult<?, ?>> next;
    private final WindowRouter router;
    private final int instance;
    private final int instances;
    private final ShuffleItemCodec codec;
    private final TreeMap<Long, KeyedFrame<T>> open = new TreeMap<>();
    private long lastEmittedEnd = Long.MIN_VALUE;
    private long received;
    private long results;

    public FinalWindowOp(OperatorInfo info, WindowDefinition window, WindowRouter router, int instance, int instances,
                         KeyedFrameFactory<T> frames, ShuffleItemCodec codec, Inlet<? super WindowResult<?, ?>> next) {
        this.info = info;
        this.router = router;
        this.instance = instance;
        this.instances = instances;
        this.window = window;
        this.frames = frames;
        this.codec = codec;
        this.next = next;
    }

    @Override
    public void onItem(int input, Object item) {
        received++;
        FramePartial partial = (FramePartial) item;
        frameAt(partial.frameStart).merge(partial);
    }

    /** A tumbling epoch is its window: emitted the moment it completes. Sliding windows wait for progress. */
    @Override
    public void onEpochComplete(long epoch) {
        if (!window.isTumbling()) {
            return;
        }
        KeyedFrame<T> frame = open.remove(epoch);
        if (frame != null) {
            results += frame.size();
            frame.emitResults(epoch, epoch + window.size(), next);
        }
    }

    /** Emits every window whose end is {@code <= completeBelow}, oldest first. */
    @Override
    public void onProgress(long completeBelow) {
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
                KeyedFrame<T> frame = open.remove(oldest);
                results += frame.size();
                frame.emitResults(start, end, next);
            } else {
                if (router.emits(start, instance, instances)) {
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

    @Override
    public void onEndOfInput() {
        if (!open.isEmpty()) {
            throw new IllegalStateException(info.name() + ": every producer ended but frames " + open.keySet()
                    + " were never completed by progress");
        }
    }

    /** Frames kept for later sliding windows are complete; the oldest other one waits. */
    @Override
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
            it.next();
            it.remove();
        }
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
        out.putLong(lastEmittedEnd).putLong(received).putLong(results);
        out.putInt(open.size());
        for (Map.Entry<Long, KeyedFrame<T>> e : open.entrySet()) {
            FrameSnapshots.write(out, e.getKey(), e.getValue(), codec);
        }
    }

    @Override
    public void restoreFrom(WireIn in) {
        lastEmittedEnd = in.getLong();
        received = in.getLong();
        results = in.getLong();
        open.clear();
        for (int n = in.getCount(1); n > 0; n--) {
            FramePartial p = FrameSnapshots.read(in, codec);
            frameAt(p.frameStart).merge(p);
        }
    }
}
