package air.runtime.impl.ops;

import air.runtime.api.WindowDefinition;
import air.runtime.impl.routing.WindowRouter;
import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.runtime.impl.shuffle.ShuffleOutput;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The partial half's part of an upserting window ({@link UpsertWindowOp} is the final half's).
 *
 * <ul>
 *   <li><b>Allowed lateness</b>: a record behind the partial's progress is admitted when every
 *       window holding it still has its state at the owner, that is when the earliest of them
 *       (ending with the record's frame) ends more than {@code allowedLateness} after the upstream
 *       watermark the record was judged against ({@code frameEnd + lateness > watermark + 1}).
 *       Its source instance publishes that watermark just before such a record, so which records
 *       are admitted depends on the input and the settings only, and on neither the progress mode
 *       nor timing. The owner's progress is at most this producer's, and the admitted records
 *       are shipped before this producer's next progress, so the owner still holds each of those
 *       windows when they arrive. Others follow the late-record policy.</li>
 *   <li><b>Early results</b>: at the end of every batch that received records, a copy of each
 *       open frame goes out as a {@link FrameAccumulators#PREVIEW}, so the owner's early rows on the
 *       processing-time interval reflect every record handed to the job so far. The frames stay
 *       as they are (the regular partial still carries all of a frame). Costs a copy of each open
 *       frame per batch, which is why only such windows do it.</li>
 * </ul>
 *
 * <p><b>Exactly once under replay.</b> A late update is no delta: per key it carries the key's
 * whole late accumulator of that frame (this part keeps them until the frame can admit no more),
 * for the keys that changed since the last flush, with the producer's count of records received as
 * its version. A preview is the same for an open frame. The final half keeps the newest version
 * per (producer, frame, key), so an update logged and sent again to a restored owner, or sent again
 * by this producer replayed from a snapshot — which reaches each input position with the same
 * state, whatever batches it reads — changes nothing it already had, and one it had not arrives
 * whole. A replay's late updates of a frame the owner already freed are dropped there.
 */
public final class UpsertFrameUpdates<T> implements FrameUpdates<T> {

    private final WindowDefinition window;
    private final long allowedLateness;
    private final boolean early;
    private final KeyedFrameFactory<T> frames;
    private final WindowRouter router;
    private final ShuffleItemCodec codec;
    private final UpdateOutput lateOut;
    private final UpdateOutput previewOut;
    /** Per frame start, records admitted late: all so far, and those not yet flushed. */
    private final TreeMap<Long, Late<T>> late = new TreeMap<>();
    private long upstream = Long.MIN_VALUE;
    private long admittedRecords;
    /** The records received at the last preview: a batch without new ones previews nothing. */
    private long previewedAt = -1;

    /** One frame's late records: {@code all} admitted so far, {@code fresh} since the last flush. */
    private record Late<T>(KeyedFrame<T> all, KeyedFrame<T> fresh) { }

    /**
     * @param allowedLateness event-time ms a window's state is kept after its end (0: no late record is admitted)
     * @param early           whether open frames are previewed at every batch end (early results)
     */
    public UpsertFrameUpdates(WindowDefinition window, long allowedLateness, boolean early, KeyedFrameFactory<T> frames, WindowRouter router,
                         ShuffleItemCodec codec, ShuffleOutput out) {
        this.window = window;
        this.allowedLateness = allowedLateness;
        this.early = early;
        this.frames = frames;
        this.router = router;
        this.codec = codec;
        this.lateOut = new UpdateOutput(out, FrameAccumulators.LATE);
        this.previewOut = new UpdateOutput(out, FrameAccumulators.PREVIEW);
    }

    @Override
    public boolean admitLate(long timestamp, T item) {
        long start = window.frameStart(timestamp);
        if (!admits(start)) {
            return false; // the earliest window holding it is gone (or going) at its owner: the late-record policy applies
        }
        Late<T> frame = late.get(start);
        if (frame == null) {
            frame = new Late<>(frames.create(), frames.create());
            late.put(start, frame);
        }
        frame.fresh().accumulate(item);
        admittedRecords++;
        return true;
    }

    /** Whether a record of the frame starting at {@code start} may still be admitted under the upstream watermark. */
    private boolean admits(long start) {
        return allowedLateness > 0 && start + window.slide() + allowedLateness - 1 > upstream;
    }

    @Override
    public void onWatermark(long watermark) {
        if (watermark > upstream) {
            upstream = watermark;
        }
    }

    @Override
    public long flush(OpenFrames open) {
        if (late.isEmpty()) {
            return 0;
        }
        long sent = 0;
        long version = open.received();
        int producer = lateOut.producer();
        for (Iterator<Map.Entry<Long, Late<T>>> it = late.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, Late<T>> e = it.next();
            long start = e.getKey();
            Late<T> frame = e.getValue();
            if (!frame.fresh().isEmpty()) {
                FrameAccumulators fresh = frame.fresh().drainAll(producer, start);
                Set<Object> changed = fresh.keys();
                frame.all().merge(fresh);
                // the changed keys' whole late accumulators, copied: the kept ones go on accumulating
                KeyedFrame<T> shown = frames.create();
                shown.merge(frame.all().view(start).only(changed)); // holds the kept accumulators, unchanged, until dropped below
                KeyedFrame<T> update = frames.create();
                shown.combineInto(update);
                sent += router.ship(start, update, lateOut.at(version));
            }
            if (!admits(start)) {
                it.remove(); // nothing more can be admitted for it: its owner frees it too
            }
        }
        return sent;
    }

    @Override
    public long onEndOfBatch(OpenFrames open) {
        long sent = flush(open);
        if (early && open.received() != previewedAt) {
            previewedAt = open.received();
            sent += open.previewOpenFrames(previewOut.at(previewedAt));
        }
        return sent;
    }

    /** Records admitted late so far (for tests and diagnostics). */
    public long admittedRecords() {
        return admittedRecords;
    }

    @Override
    public void snapshotTo(WireOut o) {
        o.putLong(upstream).putLong(admittedRecords).putInt(late.size());
        for (Map.Entry<Long, Late<T>> e : late.entrySet()) {
            if (!e.getValue().fresh().isEmpty()) {
                throw new IllegalStateException("late records of frame " + e.getKey() + " were not flushed before the snapshot");
            }
            FrameSnapshots.write(o, e.getKey(), e.getValue().all(), codec);
        }
    }

    @Override
    public void restoreFrom(WireIn in) {
        upstream = in.getLong();
        admittedRecords = in.getLong();
        late.clear();
        for (int n = in.getCount(1); n > 0; n--) {
            FrameAccumulators p = FrameSnapshots.read(in, codec);
            KeyedFrame<T> all = frames.create();
            all.merge(p);
            late.put(p.frameStart(), new Late<>(all, frames.create()));
        }
        previewedAt = -1;
    }
}
