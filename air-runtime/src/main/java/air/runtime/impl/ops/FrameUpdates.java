package air.runtime.impl.ops;

import air.runtime.impl.shuffle.ShuffleOutput;
import air.wire.WireIn;
import air.wire.WireOut;

/**
 * What a window's partial half does for a window whose final half emits upserts, chosen once when
 * the job is built: {@link #none()} for a plain window, whose methods do nothing and are called
 * per batch or per late record only, never on the per-record path; {@link UpsertFrameUpdates} admits
 * records late within the allowed lateness and previews the open frames for early results.
 */
public interface FrameUpdates<T> {

    /** The partial half as its updates see it. */
    interface OpenFrames {
        /** Records received so far (restored with the snapshot): the version of the updates sent now. */
        long received();

        /** Sends a copy of every non-empty open frame through {@code to}, leaving the frames as they are; @return the entries sent. */
        long previewOpenFrames(ShuffleOutput to);
    }

    /** A record at {@code timestamp}, behind the partial's progress: true when it is kept for a late update (not late then). */
    boolean admitLate(long timestamp, T item);

    /** The upstream watermark is {@code upstream} (before the partial releases progress for it). */
    void onWatermark(long upstream);

    /** Ships the updates of the records admitted late since the last flush, ahead of any progress that follows; @return the entries sent. */
    long flush(OpenFrames open);

    /** The end of a batch: flushes, and previews the open frames when early results are on; @return the entries sent. */
    long onEndOfBatch(OpenFrames open);

    /** Writes this part's state; the caller flushes first. */
    void snapshotTo(WireOut out);

    void restoreFrom(WireIn in);

    /** A plain window: nothing is admitted, nothing shipped early, nothing snapshotted. */
    @SuppressWarnings("unchecked")
    static <T> FrameUpdates<T> none() {
        return (FrameUpdates<T>) None.INSTANCE;
    }

    /** The plain window's strategy. */
    final class None implements FrameUpdates<Object> {
        static final None INSTANCE = new None();

        private None() {
        }

        @Override
        public boolean admitLate(long timestamp, Object item) {
            return false;
        }

        @Override
        public void onWatermark(long upstream) {
        }

        @Override
        public long flush(OpenFrames open) {
            return 0;
        }

        @Override
        public long onEndOfBatch(OpenFrames open) {
            return 0;
        }

        @Override
        public void snapshotTo(WireOut out) {
        }

        @Override
        public void restoreFrom(WireIn in) {
        }
    }
}
