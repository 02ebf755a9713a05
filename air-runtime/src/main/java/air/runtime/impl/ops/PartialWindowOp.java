package air.runtime.impl.ops;

import air.runtime.api.SinkWriter;
import air.runtime.api.WindowDefinition;
import air.hewmeld.Credit;
import air.hewmeld.SourceProgress;
import air.runtime.plan.OperatorInfo;
import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import java.util.List;
import org.eclipse.collections.impl.map.mutable.primitive.LongObjectHashMap;

/**
 * The partial half of a keyed window aggregation, fused at the end of the upstream chain:
 * accumulates per (frame, key) locally and ships a frame's partials when the watermark passes
 * its end, then one watermark per frame boundary to every destination. Records at or below the
 * current watermark are late: dropped and counted, never silently.
 */
public final class PartialWindowOp<T> extends PaddedOperator implements Inlet<T>, Counted, WindowPartial, Snapshotting, ChainTail {

    private final OperatorInfo info;
    private final long slide;
    private final KeyedFrameFactory<T> frames;
    private final ShuffleOutput out;
    private final LongObjectHashMap<KeyedFrame<T>> open = new LongObjectHashMap<>();
    private final WindowDefinition window;
    private final Routing routing;
    private final SourceProgress credit;
    private final SinkWriter<? super T> lateRecords;
    private final long share;
    private KeyedFrame<T> current;
    private long currentStart = Long.MAX_VALUE;
    private long currentEnd = Long.MIN_VALUE;
    private long watermark = Long.MIN_VALUE;
    private long sentBoundary = Long.MIN_VALUE;
    private long received;
    private long late;
    private long partialsSent;
    @SuppressWarnings("unused")
    private long q00, q01, q02, q03, q04, q05, q06, q07; // after the hot longs: keeps the next object off their cache line

    public PartialWindowOp(OperatorInfo info, WindowDefinition window, Routing routing, Progress progress, int producers,
                           KeyedFrameFactory<T> frames, ShuffleOutput out, SinkWriter<? super T> lateRecords) {
        this.info = info;
        this.lateRecords = lateRecords;
        this.window = window;
        this.routing = routing;
        this.credit = progress == Progress.HEWMELD ? new SourceProgress(window.slide(), 0) : null;
        this.share = Credit.shareOf(out.producer(), producers);
        this.slide = window.slide();
        this.frames = frames;
        this.out = out;
    }

    @Override
    public void accept(long timestamp, T item) {
        received++;
        if (timestamp <= watermark) {
            onLate(item);
            return;
        }
        KeyedFrame<T> frame = timestamp >= currentStart && timestamp < currentEnd ? current : frameOf(timestamp);
        frame.accumulate(item);
    }

    private void onLate(T item) {
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
            if (credit != null) {
                credit.noteEpoch(start);
            }
        }
        current = frame;
        currentStart = start;
        currentEnd = start + slide;
        return frame;
    }

    /** Removes a frame for shipping, dropping the current-frame cache if it pointed there. */
    private KeyedFrame<T> takeFrame(long start) {
        KeyedFrame<T> frame = open.remove(start);
        if (frame == current) {
            current = null;
            currentStart = Long.MAX_VALUE;
            currentEnd = Long.MIN_VALUE;
        }
        return frame;
    }

    @Override
    public void emit(T item) {
        accept(NO_TIMESTAMP, item);
    }

    @Override
    public void onWatermark(long wm) {
        if (credit != null) {
            releaseCredit(wm);
            return;
        }
        if (wm <= watermark) {
            return;
        }
        watermark = wm;
        long boundary = wm == Long.MAX_VALUE ? Long.MAX_VALUE : window.frameStart(wm + 1);
        if (boundary > sentBoundary) {
            sentBoundary = boundary;
            flushBefore(boundary);
            out.broadcast(new ShuffleItem.Watermark(out.producer(), boundary == Long.MAX_VALUE ? boundary : boundary - 1));
        }
    }

    private void flushBefore(long boundary) {
        if (open.isEmpty()) {
            return;
        }
        long[] starts = open.keySet().toSortedArray();
        for (long start : starts) {
            if (start >= boundary) {
                break;
            }
            ship(start, takeFrame(start));
        }
    }

    /**
     * Hew-meld: releases the epochs no record can reach any more; each epoch with data goes out
     * with this producer's share of its credit right behind it (to the owners of the windows
     * containing it under AIR, to every final instance under KEY: each receiver is its own credit
     * domain), each run of empty epochs as one range to everyone.
     */
    private void releaseCredit(long wm) {
        if (wm <= watermark) {
            return;
        }
        List<SourceProgress.Release> releases = credit.advanceTo(wm);
        long frontier = credit.frontier();
        watermark = frontier == Long.MIN_VALUE ? Long.MIN_VALUE : frontier - 1;
        for (SourceProgress.Release release : releases) {
            if (release instanceof SourceProgress.Release.Range range) {
                out.broadcast(new ShuffleItem.CreditRange(out.producer(), range.from(), range.to()));
                continue;
            }
            long epoch = ((SourceProgress.Release.Point) release).epoch();
            ship(epoch, takeFrame(epoch));
            ShuffleItem.Credit share = new ShuffleItem.Credit(out.producer(), epoch, this.share);
            if (routing == Routing.AIR) {
                // every owner of a window containing the epoch melds its credit on its own
                for (int owner : AirRouting.ownersOfFrame(epoch, window, out.destinations())) {
                    out.send(owner, share);
                }
            } else {
                out.broadcast(share);
            }
        }
    }

    /**
     * Sends a finished frame's partials: under KEY each key's to its owner; under AIR the whole
     * frame to the owner of each window it belongs to (copies for all but the last).
     */
    private void ship(long start, KeyedFrame<T> frame) {
        if (routing == Routing.AIR) {
            int[] owners = AirRouting.ownersOfFrame(start, window, out.destinations());
            for (int i = 0; i < owners.length; i++) {
                boolean last = i == owners.length - 1;
                send(owners[i], last ? frame.drainAll(out.producer(), start) : frame.copyAll(out.producer(), start));
            }
            return;
        }
        FramePartial[] partials = frame.drain(out.producer(), start, out.destinations());
        for (int d = 0; d < partials.length; d++) {
            if (partials[d] != null) {
                send(d, partials[d]);
            }
        }
    }

    private void send(int destination, FramePartial partial) {
        partialsSent += partial.size;
        out.send(destination, partial);
    }

    @Override
    public void onEndOfBatch() {
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
        out.restoredAt(id);
    }

    /** Checkpointing: everything sent so far belongs to checkpoint {@code id}; tells every destination. */
    @Override
    public void emitBarrier(long id) {
        out.broadcast(new ShuffleItem.Barrier(out.producer(), id));
    }

    @Override
    public void snapshotTo(air.wire.WireOut o, long checkpointId, ShuffleItemCodec codec) {
        o.putLong(watermark).putLong(sentBoundary).putLong(received).putLong(late).putLong(partialsSent);
        if (credit != null) {
            credit.snapshotTo(o);
        }
        if (lateRecords != null) {
            o.putBytes(GuardedWriter.checkpointed(lateRecords).snapshot(checkpointId));
        }
        long[] starts = open.keySet().toSortedArray();
        o.putInt(starts.length);
        for (long start : starts) {
            FrameSnapshots.write(o, start, open.get(start), codec);
        }
    }

    @Override
    public void restoreFrom(air.wire.WireIn in, ShuffleItemCodec codec) {
        watermark = in.getLong();
        sentBoundary = in.getLong();
        received = in.getLong();
        late = in.getLong();
        partialsSent = in.getLong();
        if (credit != null) {
            credit.restoreFrom(in);
        }
        if (lateRecords != null) {
            GuardedWriter.checkpointed(lateRecords).restore(in.getBytes());
        }
        open.clear();
        current = null;
        currentStart = Long.MAX_VALUE;
        currentEnd = Long.MIN_VALUE;
        for (int n = in.getCount(1); n > 0; n--) {
            FramePartial p = FrameSnapshots.read(in, codec);
            KeyedFrame<T> frame = frames.create();
            frame.merge(p);
            open.put(p.frameStart, frame);
        }
    }

}
