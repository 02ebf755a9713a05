package air.runtime.impl.ops;

import air.runtime.api.TimeSource;
import air.runtime.api.WindowDefinition;
import air.runtime.api.WindowResult;
import air.runtime.api.WindowUpdate;
import air.runtime.impl.routing.WindowRouter;
import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.runtime.operator.Operator;
import air.runtime.plan.OperatorInfo;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The final half of a window that may be emitted more than once: with allowed lateness, early
 * results or both. Its rows are {@link WindowUpdate} upserts of (window, key). A plain window runs
 * {@link FinalWindowOp} instead, untouched by any of this.
 *
 * <ul>
 *   <li><b>On time</b>: once progress passes a window's end, one {@code ON_TIME} row per key, at
 *       event time {@code end - 1}, as a plain window.</li>
 *   <li><b>Late</b>: its frames are kept until progress passes {@code end + allowedLateness};
 *       a {@link FrameAccumulators#LATE} update of records admitted late ({@link UpsertFrameUpdates})
 *       replaces what that producer sent before for its keys, and each window already fired that
 *       holds its frame emits a {@code LATE} row for each key it changed, with the key's whole
 *       updated value, at event time {@code max(end - 1, progress)} (never behind the progress
 *       already forwarded). Then the frames are freed.</li>
 *   <li><b>Early</b>: {@link FrameAccumulators#PREVIEW}s of the producers' open frames count until
 *       the frame's regular partial replaces them; a window not fired yet that received partials
 *       emits an {@code EARLY} row per key at most {@code earlyResults} after it changed, by the
 *       job's {@link TimeSource} (a test's manual clock): checked on every input, progress and
 *       idle wake-up.</li>
 * </ul>
 *
 * <p>Updates are kept per (producer, frame, key), newest version wins, so a repeated or replayed
 * update changes nothing (see {@link FrameAccumulators}); one for a frame already past its lateness
 * here can only be a replay and is dropped ({@link #staleUpdates}). Frames, updates and what has
 * fired are part of the snapshot, restored exactly; the next early row's time is processing time
 * and starts again after a restore.
 */
public final class UpsertWindowOp<T> implements Operator, Counted, WindowStats {

    /** The longest the tasklet waits for input, in machine time, while an early row is pending (the clock may be a manual one). */
    private static final long MAX_IDLE_WAIT_NANOS = 20_000_000L;

    private final OperatorInfo info;
    private final WindowDefinition window;
    private final long allowedLateness;
    private final long earlyNanos;
    private final TimeSource time;
    private final KeyedFrameFactory<T> frames;
    private final ShuffleItemCodec codec;
    private final WindowRouter router;
    private final int instance;
    private final int instances;
    private final Rows rows;
    private final TreeMap<Long, KeyedFrame<T>> open = new TreeMap<>();
    /**
     * Previews and late updates, per (frame, producer, key): replaced by newer versions, never
     * combined into {@link #open}. Apart, because a frame's regular partial replaces the
     * previews of it but not its late records (a record late by its producer's progress may
     * belong to a frame still open there, so its update may come before the frame's regular one).
     */
    private final UpdateLayers<T> previews;
    private final UpdateLayers<T> lates;
    /** Frame starts that received partials since the last early rows. */
    private final TreeSet<Long> changed = new TreeSet<>();
    /** Every window ending at or before it has fired (on time). */
    private long firedEnd = Long.MIN_VALUE;
    /** The progress of the last {@link #onProgress}, forwarded downstream since: no row goes out behind it. */
    private long completeBelow = Long.MIN_VALUE;
    private long nextEarlyNanos = Long.MAX_VALUE;
    private long received;
    private long staleUpdates;

    /**
     * @param allowedLateness event-time ms a window's state is kept after its end
     * @param earlyResultsMs  processing-time ms between early rows of an open window (0: none)
     */
    public UpsertWindowOp(OperatorInfo info, WindowDefinition window, long allowedLateness, long earlyResultsMs, TimeSource time,
                          WindowRouter router, int instance, int instances, KeyedFrameFactory<T> frames, ShuffleItemCodec codec,
                          Inlet<? super WindowUpdate<?, ?>> next) {
        this.info = info;
        this.window = window;
        this.allowedLateness = allowedLateness;
        this.earlyNanos = earlyResultsMs * 1_000_000L;
        this.time = time;
        this.router = router;
        this.instance = instance;
        this.instances = instances;
        this.frames = frames;
        this.codec = codec;
        this.rows = new Rows(next);
        this.previews = new UpdateLayers<>(frames);
        this.lates = new UpdateLayers<>(frames);
    }

    @Override
    public void onItem(int input, Object item) {
        FrameAccumulators p = (FrameAccumulators) item;
        received++;
        long start = p.frameStart();
        if (p.kind() == FrameAccumulators.REGULAR) {
            if (start + window.slide() <= firedEnd) {
                throw new IllegalStateException(info.name() + ": the partial of frame " + start + " from producer " + p.producer()
                        + " arrived after a window holding it fired (" + firedEnd + "): frames must precede their producer's progress");
            }
            frameAt(start).merge(p);
            previews.regularArrived(p.producer(), start); // it holds all that producer's previews of it held
            noteChanged(start);
        } else if (start + window.slide() + allowedLateness <= completeBelow) {
            // its earliest window is past the lateness here, so its producer sent every update of it before the progress
            // that got it there: this one is a replay (a restored producer's), and all it holds is here already
            staleUpdates++;
        } else {
            Set<Object> keys = (p.kind() == FrameAccumulators.LATE ? lates : previews).update(p);
            if (!keys.isEmpty()) {
                frameAt(start); // its windows have data, even if no regular partial of it came
                if (p.kind() == FrameAccumulators.LATE) {
                    long last = Math.min(start + window.size(), firedEnd);
                    for (long end = start + window.slide(); end <= last; end += window.slide()) {
                        emit(end, WindowUpdate.Kind.LATE, keys);
                    }
                }
                noteChanged(start);
            }
        }
        emitEarlyIfDue();
    }

    private KeyedFrame<T> frameAt(long start) {
        KeyedFrame<T> frame = open.get(start);
        if (frame == null) {
            frame = frames.create();
            open.put(start, frame);
        }
        return frame;
    }

    /** Early results: a window still open holding frame {@code start} changed, so early rows are due within the interval. */
    private void noteChanged(long start) {
        if (earlyNanos > 0 && start + window.size() > firedEnd) {
            if (changed.isEmpty()) {
                nextEarlyNanos = time.nanoTime() + earlyNanos;
            }
            changed.add(start);
        }
    }

    /** Updates of frames already past their lateness here, dropped as replays (none without fault tolerance). */
    public long staleUpdates() {
        return staleUpdates;
    }

    @Override
    public void onProgress(long completeBelow) {
        fireOnTime(completeBelow); // rows no earlier than the progress forwarded before this call
        evict(completeBelow);
        this.completeBelow = completeBelow; // the engine forwards it once this returns
        emitEarlyIfDue();
    }

    /** Fires every window with data that ends at or before {@code bound} and has not fired, oldest first. */
    private void fireOnTime(long bound) {
        long size = window.size();
        long slide = window.slide();
        while (true) {
            Long first = firedEnd == Long.MIN_VALUE ? (open.isEmpty() ? null : open.firstKey()) : open.higherKey(firedEnd - size);
            if (first == null) {
                break;
            }
            long end = firedEnd == Long.MIN_VALUE ? first + slide : Math.max(firedEnd + slide, first + slide);
            if (end > bound) {
                break;
            }
            emit(end, WindowUpdate.Kind.ON_TIME, null);
            firedEnd = end;
        }
        if (bound != Long.MAX_VALUE && window.frameStart(bound) > firedEnd) {
            firedEnd = window.frameStart(bound); // windows without data ending by then: a late partial of theirs is LATE
        }
    }

    /** Frees the frames whose every window ended {@code allowedLateness} or more before {@code bound}. */
    private void evict(long bound) {
        long keepFrom = bound == Long.MAX_VALUE ? Long.MAX_VALUE : bound - window.size() - allowedLateness;
        open.headMap(keepFrom, true).clear();
        previews.evictThrough(keepFrom);
        lates.evictThrough(keepFrom);
        changed.headSet(keepFrom, true).clear();
    }

    private void emitEarlyIfDue() {
        if (changed.isEmpty() || time.nanoTime() < nextEarlyNanos) {
            return;
        }
        long slide = window.slide();
        TreeSet<Long> ends = new TreeSet<>();
        for (long start : changed) {
            for (long end = Math.max(start + slide, firedEnd + slide); end <= start + window.size(); end += slide) {
                ends.add(end);
            }
        }
        changed.clear();
        nextEarlyNanos = Long.MAX_VALUE;
        for (long end : ends) {
            emit(end, WindowUpdate.Kind.EARLY, null);
        }
    }

    /** The rows of the window ending at {@code end} (if this instance emits it), for {@code keys} only unless null. */
    private void emit(long end, WindowUpdate.Kind kind, Set<Object> keys) {
        long start = end - window.size();
        if (!router.emits(start, instance, instances)) {
            return;
        }
        // a copy: the kept frames' accumulators must not be finished (an aggregation may hand out its accumulator)
        KeyedFrame<T> sum = frames.create();
        for (KeyedFrame<T> frame : open.subMap(start, true, end, false).values()) {
            frame.combineInto(sum);
        }
        previews.combineInto(start, end, sum);
        lates.combineInto(start, end, sum);
        rows.emit(kind, keys, completeBelow);
        sum.emitResults(start, end, rows);
    }

    @Override
    public void onEndOfInput() {
        if (!open.isEmpty()) {
            throw new IllegalStateException(info.name() + ": every producer ended but frames " + open.keySet()
                    + " were never completed by progress");
        }
    }

    @Override
    public long idleWakeupNanos() {
        if (changed.isEmpty()) {
            return Long.MAX_VALUE;
        }
        long wait = nextEarlyNanos - time.nanoTime();
        return wait <= 0 ? 0 : Math.min(wait, MAX_IDLE_WAIT_NANOS);
    }

    @Override
    public void onIdle() {
        emitEarlyIfDue();
    }

    @Override
    public long oldestPending(long completeBelow) {
        Long first = open.ceilingKey(completeBelow == Long.MIN_VALUE ? Long.MIN_VALUE : completeBelow - window.size() + 1);
        return first == null ? Long.MAX_VALUE : first;
    }

    @Override
    public long received() {
        return received;
    }

    @Override
    public long results() {
        return rows.results;
    }

    @Override
    public OperatorInfo info() {
        return info;
    }

    @Override
    public void snapshotTo(WireOut out, long checkpointId) {
        out.putLong(received).putLong(rows.results).putLong(firedEnd).putLong(completeBelow).putInt(open.size());
        for (Map.Entry<Long, KeyedFrame<T>> e : open.entrySet()) {
            FrameSnapshots.write(out, e.getKey(), e.getValue(), codec);
        }
        out.putInt(changed.size());
        for (long start : changed) {
            out.putLong(start);
        }
        previews.snapshotTo(out, codec);
        lates.snapshotTo(out, codec);
    }

    @Override
    public void restoreFrom(WireIn in) {
        received = in.getLong();
        rows.results = in.getLong();
        firedEnd = in.getLong();
        completeBelow = in.getLong();
        open.clear();
        for (int n = in.getCount(1); n > 0; n--) {
            FrameAccumulators p = FrameSnapshots.read(in, codec);
            KeyedFrame<T> frame = frames.create();
            frame.merge(p);
            open.put(p.frameStart(), frame);
        }
        changed.clear();
        for (int n = in.getCount(8); n > 0; n--) {
            changed.add(in.getLong());
        }
        previews.restoreFrom(in, codec);
        lates.restoreFrom(in, codec);
        nextEarlyNanos = changed.isEmpty() ? Long.MAX_VALUE : time.nanoTime() + earlyNanos;
    }

    /** Turns a window's results into rows of one kind, for some keys or all, never behind the progress already forwarded. */
    private static final class Rows implements Inlet<WindowResult<?, ?>> {
        private final Inlet<? super WindowUpdate<?, ?>> next;
        private WindowUpdate.Kind kind;
        private Set<Object> keys;
        private long floor;
        long results;

        Rows(Inlet<? super WindowUpdate<?, ?>> next) {
            this.next = next;
        }

        void emit(WindowUpdate.Kind kind, Set<Object> keys, long floor) {
            this.kind = kind;
            this.keys = keys;
            this.floor = floor;
        }

        @Override
        public void accept(long timestamp, WindowResult<?, ?> r) {
            if (keys != null && !keys.contains(r.key())) {
                return;
            }
            results++;
            next.accept(Math.max(timestamp, floor), new WindowUpdate<>(r.start(), r.end(), r.key(), r.value(), kind));
        }

        @Override
        public void emit(WindowResult<?, ?> item) {
            throw new UnsupportedOperationException("window results come with their time");
        }

        @Override
        public void onWatermark(long watermark) {
        }

        @Override
        public void onEndOfBatch() {
        }

        @Override
        public void onComplete() {
        }
    }
}
