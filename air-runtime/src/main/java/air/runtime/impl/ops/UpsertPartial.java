package air.runtime.impl.ops;

import air.runtime.api.WindowDefinition;
import air.runtime.impl.routing.WindowRouter;
import air.wire.WireIn;
import air.wire.WireOut;
import org.eclipse.collections.impl.map.mutable.primitive.LongObjectHashMap;

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
 *       are shipped (as partials of their own frames) before this producer's next progress, so
 *       the owner still holds each of those windows when they arrive. Others follow the
 *       late-record policy.</li>
 *   <li><b>Early results</b>: the open frames are shipped (drained, left open) at the end of
 *       every batch, so the owner holds every record handed to the job so far and its early rows
 *       on the processing-time interval reflect them all. Costs one partial per open frame and
 *       destination per batch, which is why only such windows do it.</li>
 * </ul>
 */
public final class UpsertPartial<T> implements PartialUpdates<T> {

    private final WindowDefinition window;
    private final long allowedLateness;
    private final boolean early;
    private final KeyedFrameFactory<T> frames;
    private final WindowRouter router;
    private final ShuffleOutput out;
    private final LongObjectHashMap<KeyedFrame<T>> admitted = new LongObjectHashMap<>();
    private long upstream = Long.MIN_VALUE;
    private long admittedRecords;

    /**
     * @param allowedLateness event-time ms a window's state is kept after its end (0: no late record is admitted)
     * @param early           whether open frames ship at every batch end (early results)
     */
    public UpsertPartial(WindowDefinition window, long allowedLateness, boolean early, KeyedFrameFactory<T> frames, WindowRouter router,
                         ShuffleOutput out) {
        this.window = window;
        this.allowedLateness = allowedLateness;
        this.early = early;
        this.frames = frames;
        this.router = router;
        this.out = out;
    }

    @Override
    public boolean admitLate(long timestamp, T item) {
        long start = window.frameStart(timestamp);
        if (allowedLateness == 0 || start + window.slide() + allowedLateness - 1 <= upstream) {
            return false; // the earliest window holding it is gone (or going) at its owner: the late-record policy applies
        }
        KeyedFrame<T> frame = admitted.get(start);
        if (frame == null) {
            frame = frames.create();
            admitted.put(start, frame);
        }
        frame.accumulate(item);
        admittedRecords++;
        return true;
    }

    @Override
    public void onWatermark(long watermark) {
        if (watermark > upstream) {
            upstream = watermark;
        }
    }

    @Override
    public long flush() {
        if (admitted.isEmpty()) {
            return 0;
        }
        long sent = 0;
        for (long start : admitted.keySet().toSortedArray()) {
            sent += router.ship(start, admitted.get(start), out);
        }
        admitted.clear();
        return sent;
    }

    @Override
    public long onEndOfBatch(OpenFrames open) {
        long sent = flush();
        return early ? sent + open.shipOpenFrames() : sent;
    }

    /** Records admitted late so far (for tests and diagnostics). */
    public long admittedRecords() {
        return admittedRecords;
    }

    @Override
    public void snapshotTo(WireOut o) {
        o.putLong(upstream).putLong(admittedRecords);
    }

    @Override
    public void restoreFrom(WireIn in) {
        upstream = in.getLong();
        admittedRecords = in.getLong();
        admitted.clear();
    }
}
