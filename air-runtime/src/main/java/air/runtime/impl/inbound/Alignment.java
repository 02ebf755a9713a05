package air.runtime.impl.inbound;

import air.runtime.impl.ops.ShuffleItem;
import java.util.List;

/**
 * Barrier alignment on an inbound edge, chosen once per job: {@link #NONE} without snapshots,
 * {@link BarrierAligner} with checkpoints or replication.
 */
public interface Alignment {

    /** Whether {@code item} must wait (its producer is past the barrier being aligned); held items come back through {@link #releaseHeld}. */
    boolean holds(ShuffleItem item);

    /** Whether the barrier was taken before (a repeat after a takeover). */
    boolean isRepeat(ShuffleItem.Barrier barrier);

    /** A fresh barrier from its producer. */
    void onBarrier(ShuffleItem.Barrier barrier);

    /** The checkpoint being aligned, when every producer's barrier (or end of stream) is in; 0 when not aligned. */
    long aligned(EndOfStreamCounter ends);

    /** The aligned checkpoint was captured: aligning moves to the next one, and the items held back come out, in order. */
    List<ShuffleItem> releaseHeld();

    /** Items held back now, waiting for the barrier being aligned (0 when none). */
    default int heldCount() {
        return 0;
    }

    /** No snapshots: a barrier is a protocol error, nothing waits. */
    Alignment NONE = new Alignment() {
        @Override
        public boolean holds(ShuffleItem item) {
            return false;
        }

        @Override
        public boolean isRepeat(ShuffleItem.Barrier barrier) {
            return false;
        }

        @Override
        public void onBarrier(ShuffleItem.Barrier barrier) {
            throw new IllegalStateException("barrier " + barrier.id() + " from producer " + barrier.producer()
                    + " in a job without checkpoints or replication");
        }

        @Override
        public long aligned(EndOfStreamCounter ends) {
            return 0;
        }

        @Override
        public List<ShuffleItem> releaseHeld() {
            return List.of();
        }
    };
}
