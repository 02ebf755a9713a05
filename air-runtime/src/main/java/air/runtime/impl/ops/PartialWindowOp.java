package air.runtime.impl.ops;

import air.runtime.api.SinkWriter;
import air.runtime.api.WindowDefinition;
import air.runtime.impl.failure.OperatorFailure;
import air.runtime.impl.progress.ProgressRelease;
import air.runtime.impl.routing.WindowRouter;
import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.ShuffleItem;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.runtime.impl.shuffle.ShuffleOutput;
import air.runtime.operator.Rescale;
import air.runtime.plan.OperatorInfo;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.collections.impl.map.mutable.primitive.LongObjectHashMap;

/**
 * The partial half of a window aggregation, fused at the end of the upstream chain: accumulates
 * per (frame, key) locally. When the upstream watermark moves, the job's {@link ProgressRelease}
 * decides which frames are finished and tells the destinations (watermarks or credit); the job's
 * {@link WindowRouter} decides where each finished frame's partials go. Records at or below the
 * released progress are late: dropped and counted, or sent to the late-record sink, never silently
 * — unless the window emits upserts and its {@link FrameUpdates} admits them within the allowed
 * lateness (asked only for such records, so a plain window's per-record path is unchanged).
 */
public final class PartialWindowOp<T> extends PaddedOperator implements Inlet<T>, Counted, PartialWindowMeters, Snapshotting, ChainTail,
        ProgressRelease.Frames, FrameUpdates.OpenFrames {

    private final OperatorInfo info;
    private final long slide;
    private final KeyedFrameFactory<T> frames;
    private final ShuffleOutput out;
    private final LongObjectHashMap<KeyedFrame<T>> open = new LongObjectHashMap<>();
    private final WindowDefinition window;
    private final WindowRouter router;
    private final ProgressRelease release;
    private final SinkWriter<? super T> lateRecords;
    private final ShuffleItemCodec codec;
    private final FrameUpdates<T> updates;
    private final FrameChanges changes = new FrameChanges();
    /** The late-record sink's state of the checkpoint restored, applied once the whole chain is read ({@link #restoredAt}). */
    private byte[] lateRestore;
    private KeyedFrame<T> current;
    private long currentStart = Long.MAX_VALUE;
    private long currentEnd = Long.MIN_VALUE;
    private long watermark = Long.MIN_VALUE;
    private long received;
    private long late;
    private long partialsSent;
    @SuppressWarnings("unused")
    private long q00, q01, q02, q03, q04, q05, q06, q07; // after the hot longs: keeps the next object off their cache line

    public PartialWindowOp(OperatorInfo info, WindowDefinition window, WindowRouter router, ProgressRelease release,
                           KeyedFrameFactory<T> frames, ShuffleItemCodec codec, ShuffleOutput out, SinkWriter<? super T> lateRecords,
                           FrameUpdates<T> updates) {
        this.info = info;
        this.updates = updates;
        this.lateRecords = lateRecords;
        this.window = window;
        this.router = router;
        this.release = release;
        this.codec = codec;
        this.slide = window.slide();
        this.frames = frames;
        this.out = out;
    }

    @Override
    public void accept(long timestamp, T item) {
        received++;
        if (timestamp <= watermark) {
            onLate(timestamp, item);
            return;
        }
        KeyedFrame<T> frame = timestamp >= currentStart && timestamp < currentEnd ? current : frameOf(timestamp);
        frame.accumulate(item);
    }

    private void onLate(long timestamp, T item) {
        if (updates.admitLate(timestamp, item)) {
            return;
        }
        late++;
        if (lateRecords != null) {
            try {
                lateRecords.write(item);
            } catch (RuntimeException e) {
                throw new OperatorFailure(info, "late-record sink threw on " + OperatorFailure.preview(item), e);
            }
        }
    }

    private KeyedFrame<T> frameOf(long timestamp) {
        long start = window.frameStart(timestamp);
        KeyedFrame<T> frame = open.get(start);
        if (frame == null) {
            frame = frames.create();
            open.put(start, frame);
            release.onFrameOpened(start);
        }
        changes.touched(start); // once per switch of frame: records into the current one need no mark
        current = frame;
        currentStart = start;
        currentEnd = start + slide;
        return frame;
    }

    /** Forgets the current frame, so that the next record marks its frame touched again. */
    private void forgetCurrent() {
        current = null;
        currentStart = Long.MAX_VALUE;
        currentEnd = Long.MIN_VALUE;
    }

    /** Removes a frame for shipping, dropping the current-frame cache if it pointed there. */
    private KeyedFrame<T> takeFrame(long start) {
        KeyedFrame<T> frame = open.remove(start);
        changes.gone(start);
        if (frame == current) {
            forgetCurrent();
        }
        return frame;
    }

    @Override
    public void emit(T item) {
        accept(NO_TIMESTAMP, item);
    }

    @Override
    public void onWatermark(long wm) {
        updates.onWatermark(wm);
        partialsSent += updates.flush(this); // admitted late records go ahead of the progress they were admitted under
        if (wm > watermark) {
            watermark = release.advance(wm, this, out);
        }
    }

    @Override
    public void shipBefore(long boundary) {
        if (open.isEmpty()) {
            return;
        }
        long[] starts = open.keySet().toSortedArray();
        for (long start : starts) {
            if (start >= boundary) {
                break;
            }
            ship(start);
        }
    }

    @Override
    public void ship(long start) {
        KeyedFrame<T> frame = takeFrame(start);
        if (frame != null) {
            partialsSent += router.ship(start, frame, out);
        }
    }

    @Override
    public void onEndOfBatch() {
        partialsSent += updates.onEndOfBatch(this);
    }

    /**
     * Early results: sends a copy of every open frame's accumulators so far, leaving the frames as
     * they are, so that the frame's regular partial still holds all of it (what makes a replay's
     * partials the same whatever batches it read, and previews idempotent).
     */
    @Override
    public long previewOpenFrames(ShuffleOutput to) {
        long sent = 0;
        for (long start : open.keySet().toSortedArray()) {
            KeyedFrame<T> frame = open.get(start);
            if (!frame.isEmpty()) {
                KeyedFrame<T> copy = frames.create();
                frame.combineInto(copy);
                sent += router.ship(start, copy, to);
            }
        }
        return sent;
    }

    @Override
    public void onComplete() {
        onWatermark(Long.MAX_VALUE);
        out.broadcast(new ShuffleItem.EndOfStream(out.producer()));
        if (lateRecords != null) {
            lateRecords.close();
        }
    }

    @Override
    public long received() {
        return received;
    }

    @Override
    public long late() {
        return late;
    }

    @Override
    public long partialsSent() {
        return partialsSent;
    }

    /** Restored as finished: tells every destination again that this producer ended, and closes the late-record sink. */
    @Override
    public void endAgainAfterRestore() {
        out.broadcast(new ShuffleItem.EndOfStream(out.producer()));
        if (lateRecords != null) {
            lateRecords.close();
        }
    }

    @Override
    public void restoredAt(long id) {
        if (lateRestore != null) {
            GuardedWriter.checkpointed(lateRecords).restore(lateRestore);
            lateRestore = null;
        }
        out.restoredAt(id);
    }

    /** Checkpointing: everything sent so far belongs to checkpoint {@code id}; tells every destination. */
    @Override
    public void emitBarrier(long id) {
        out.broadcast(new ShuffleItem.Barrier(out.producer(), id));
    }

    @Override
    public void snapshotTo(WireOut o, long checkpointId) {
        writeCounters(o, checkpointId);
        long[] starts = open.keySet().toSortedArray();
        o.putInt(starts.length);
        for (long start : starts) {
            FrameSnapshots.write(o, start, open.get(start), codec);
        }
        updates.snapshotTo(o);
        snapshotTaken();
    }

    /**
     * Incremental checkpoints: the counters and progress as in a whole snapshot, then the open
     * frames, each whole when records went into it since the last snapshot, else by its start
     * alone ({@link FrameChanges}); a frame shipped since is not listed.
     */
    @Override
    public boolean snapshotChangesTo(WireOut o, long checkpointId) {
        writeCounters(o, checkpointId);
        long[] starts = open.keySet().toSortedArray();
        List<KeyedFrame<T>> list = new ArrayList<>(starts.length);
        for (long start : starts) {
            list.add(open.get(start));
        }
        changes.write(o, starts, list, codec);
        updates.snapshotTo(o);
        snapshotTaken();
        return true;
    }

    private void snapshotTaken() {
        changes.snapshotTaken();
        forgetCurrent();
    }

    private void writeCounters(WireOut o, long checkpointId) {
        partialsSent += updates.flush(this); // ahead of the barrier that follows: they belong to this checkpoint
        o.putLong(watermark).putLong(received).putLong(late).putLong(partialsSent);
        release.snapshotTo(o);
        if (lateRecords != null) {
            o.putBytes(GuardedWriter.checkpointed(lateRecords).snapshot(checkpointId));
        }
    }

    @Override
    public void restoreFrom(WireIn in) {
        readCounters(in);
        open.clear();
        for (int n = in.getCount(1); n > 0; n--) {
            FrameAccumulators p = FrameSnapshots.read(in, codec);
            KeyedFrame<T> frame = frames.create();
            frame.merge(p);
            open.put(p.frameStart, frame);
        }
        updates.restoreFrom(in);
    }

    /** The frames listed stay open, those written whole replacing the earlier ones; the others were shipped before that checkpoint. */
    @Override
    public void restoreChanges(WireIn in) {
        readCounters(in);
        LongObjectHashMap<KeyedFrame<T>> live = new LongObjectHashMap<>();
        for (FrameChanges.Entry e : FrameChanges.read(in, codec)) {
            live.put(e.start(), FrameChanges.restored(e, open.get(e.start()), frames, info));
        }
        open.clear();
        open.putAll(live);
        updates.restoreFrom(in);
    }

    /**
     * Onto another layout: the open frames of the earlier instances this one takes, merged frame
     * by frame (a partial frame is any producer's share, unshipped: whoever ships it, the final
     * instances merge it the same); their counters summed; the watermark and the progress released
     * the lowest of every earlier instance, since this instance's source now reads what any of
     * them had left. Each earlier state is read through this operator's own restore.
     */
    @Override
    public void restoreRescaled(Rescale rescale) {
        if (updates != FrameUpdates.<T>none()) {
            throw new UnsupportedOperationException("a window that emits early or late updates keeps per-producer versions");
        }
        LongObjectHashMap<KeyedFrame<T>> taken = new LongObjectHashMap<>();
        List<WireIn> releases = new ArrayList<>();
        List<List<byte[]>> lateOutput = new ArrayList<>();
        long lowest = Long.MAX_VALUE;
        long takenReceived = 0;
        long takenLate = 0;
        long takenSent = 0;
        for (int i = 0; i < rescale.instancesBefore(); i++) {
            List<WireIn> states = rescale.states(i);
            if (states == null) {
                continue;
            }
            restoreFrom(states.get(0));
            for (WireIn changes : states.subList(1, states.size())) {
                restoreChanges(changes);
            }
            lowest = Math.min(lowest, watermark);
            WireOut progress = new WireOut(64);
            release.snapshotTo(progress);
            releases.add(new WireIn(progress.buffer(), -1));
            if (!rescale.takes(i)) {
                continue;
            }
            takenReceived += received;
            takenLate += late;
            takenSent += partialsSent;
            if (lateRestore != null) {
                lateOutput.add(List.of(lateRestore));
            }
            long[] starts = open.keySet().toSortedArray();
            for (long start : starts) {
                KeyedFrame<T> into = taken.get(start);
                if (into == null) {
                    into = frames.create();
                    taken.put(start, into);
                }
                into.merge(open.get(start).drainAll(out.producer(), start));
            }
        }
        if (releases.isEmpty()) {
            return;
        }
        open.clear();
        open.putAll(taken);
        forgetCurrent();
        watermark = lowest;
        received = takenReceived;
        late = takenLate;
        partialsSent = takenSent;
        release.restoreLowest(releases);
        lateRestore = null;
        if (lateRecords != null) {
            GuardedWriter.checkpointed(lateRecords).restoreRescaled(rescale.checkpoint(), lateOutput);
        }
    }

    private void readCounters(WireIn in) {
        watermark = in.getLong();
        received = in.getLong();
        late = in.getLong();
        partialsSent = in.getLong();
        release.restoreFrom(in);
        if (lateRecords != null) {
            lateRestore = in.getBytes(); // every checkpoint of a chain holds it whole: only the last one's is restored
        }
        forgetCurrent();
        changes.snapshotTaken();
    }
}
