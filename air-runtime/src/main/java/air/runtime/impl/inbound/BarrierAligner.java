package air.runtime.impl.inbound;

import air.runtime.impl.ops.ShuffleItem;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Aligns checkpoint barriers across the producers of an inbound edge (Flink's aligned
 * checkpoints, Jet's snapshot barriers): once a producer's barrier for the checkpoint being
 * aligned is in, that producer's later items wait until every producer's barrier (or end of
 * stream) is in; then the instance's state is a consistent cut and the waiting items run.
 */
public final class BarrierAligner implements Alignment {

    private final long[] barrierOf;
    private final ArrayDeque<ShuffleItem> held = new ArrayDeque<>();
    private long aligning;

    /** Aligns checkpoints after {@code restoredId} (0 on a fresh start). */
    public BarrierAligner(int producers, long restoredId) {
        this.barrierOf = new long[producers];
        Arrays.fill(barrierOf, restoredId);
        this.aligning = restoredId + 1;
    }

    @Override
    public boolean holds(ShuffleItem item) {
        if (barrierOf[item.producer()] >= aligning) {
            held.add(item);
            return true;
        }
        return false;
    }

    @Override
    public boolean isRepeat(ShuffleItem.Barrier barrier) {
        return barrier.id() <= barrierOf[barrier.producer()];
    }

    @Override
    public void onBarrier(ShuffleItem.Barrier b) {
        int p = b.producer();
        if (b.id() != barrierOf[p] + 1) {
            throw new IllegalStateException("barrier " + b.id() + " from producer " + p + " after barrier " + barrierOf[p]);
        }
        barrierOf[p] = b.id();
    }

    @Override
    public long aligned(EndOfStreamCounter ends) {
        boolean anyBarrier = false;
        for (int p = 0; p < barrierOf.length; p++) {
            if (barrierOf[p] < aligning && !ends.ended(p)) {
                return 0;
            }
            anyBarrier |= barrierOf[p] >= aligning;
        }
        return anyBarrier ? aligning : 0;
    }

    @Override
    public int heldCount() {
        return held.size();
    }

    @Override
    public List<ShuffleItem> releaseHeld() {
        aligning++;
        List<ShuffleItem> release = new ArrayList<>(held);
        held.clear();
        return release;
    }
}
