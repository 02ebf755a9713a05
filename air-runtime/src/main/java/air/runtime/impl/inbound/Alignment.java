package air.runtime.impl.inbound;

import air.runtime.impl.shuffle.ShuffleItem;
import java.util.Collections;
import java.util.Iterator;

/**
 * Barrier alignment on an inbound edge, chosen once per job: {@link #NONE} without snapshots,
 * {@link BarrierAligner} with checkpoints or replication.
 */
public interface Alignment extends AutoCloseable {

    /** Whether {@code item} must wait (its producer is past the barrier being aligned); held items come back through {@link #releaseHeld}. */
    boolean holds(ShuffleItem item);

    /** Whether the barrier was taken before (a repeat after a takeover). */
    boolean isRepeat(ShuffleItem.Barrier barrier);

    /** A fresh barrier from its producer. */
    void onBarrier(ShuffleItem.Barrier barrier);

    /** The checkpoint being aligned, when every producer's barrier (or end of stream) is in; 0 when not aligned. */
    long aligned(EndOfStreamCounter ends);

    /**
     * The aligned checkpoint was captured: aligning moves to the next one, and the items held back
     * come out, in order, one at a time (those spilled to disk read back as they go). Items held
     * while they come out wait for the next checkpoint. Close it when done, or to drop what is left.
     */
    Released releaseHeld();

    /** Items held back now, waiting for the barrier being aligned (0 when none). */
    default int heldCount() {
        return 0;
    }

    /** The estimated bytes of the held items kept in memory, those still to come out of a release included (0 when none). */
    default long heldBytes() {
        return 0;
    }

    /** The instance is done (finished, failed or cancelled): whatever is still held is dropped, spill files deleted. */
    @Override
    default void close() {
    }

    /** Held items coming out after an alignment: an iterable to be iterated once, and closed. */
    interface Released extends Iterable<ShuffleItem>, AutoCloseable {

        /** Drops the items not taken (deleting their spill file). */
        @Override
        void close();

        /** Nothing held. */
        Released NONE = new Released() {
            @Override
            public Iterator<ShuffleItem> iterator() {
                return Collections.emptyIterator();
            }

            @Override
            public void close() {
            }
        };
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
        public Released releaseHeld() {
            return Released.NONE;
        }
    };
}
