package air.runtime.impl.ops;

import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.operator.Operator;
import air.runtime.operator.Rescale;
import air.runtime.plan.OperatorInfo;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.List;

/**
 * What the joins over time ranges share as operators ({@link IntervalJoinOp}, {@link LookupJoinOp}):
 * both inputs' partials go to their {@link PaneJoin}, the counts, the end-of-input check and the
 * snapshot of the panes; a subclass keeps its own buffers and says what a complete pane does.
 */
abstract class PaneJoinOperator implements Operator, Counted, WindowStats, PaneJoin.Panes {

    protected final OperatorInfo info;
    protected final PaneJoin panes;
    protected long results;
    private long received;

    PaneJoinOperator(OperatorInfo info, PaneJoin panes) {
        this.info = info;
        this.panes = panes;
    }

    @Override
    public final void onItem(int input, Object item) {
        received++;
        panes.merge(input, (FrameAccumulators) item);
    }

    @Override
    public final void onEndOfInput() {
        panes.requireEmpty();
    }

    @Override
    public final long oldestPending(long completeBelow) {
        return panes.oldestPending(completeBelow);
    }

    @Override
    public final void snapshotTo(WireOut out, long checkpointId) {
        out.putLong(received).putLong(results);
        panes.snapshotTo(out);
        snapshotBuffers(out);
    }

    @Override
    public final void restoreFrom(WireIn in) {
        received = in.getLong();
        results = in.getLong();
        panes.restoreFrom(in);
        restoreBuffers(in);
    }

    /**
     * Onto another layout: every earlier instance's panes and buffers are read; this instance keeps
     * its share of the panes ({@link PaneJoin#restoreShares}) and the buffered records of the keys it
     * owns now ({@link #restoreBufferShare}); the counters sum those of the earlier instances it takes.
     */
    @Override
    public final void restoreRescaled(Rescale rescale) {
        List<PaneJoin> earlier = new ArrayList<>(rescale.instancesBefore());
        long in = 0;
        long out = 0;
        for (int i = 0; i < rescale.instancesBefore(); i++) {
            WireIn w = rescale.newest(i); // whole in every checkpoint
            if (w == null) {
                earlier.add(null);
                continue;
            }
            long r = w.getLong();
            long n = w.getLong();
            PaneJoin e = panes.emptyCopy();
            e.restoreFrom(w);
            restoreBufferShare(w, rescale.instance(), rescale.instances());
            earlier.add(e);
            if (rescale.takes(i)) {
                in += r;
                out += n;
            }
        }
        panes.restoreShares(earlier);
        received = in;
        results = out;
    }

    /** Onto another layout: reads an earlier instance's buffers (after its panes) and keeps the records of the keys this one owns. */
    abstract void restoreBufferShare(WireIn in, int instance, int instances);

    /** The subclass's own state, after the panes. */
    abstract void snapshotBuffers(WireOut out);

    abstract void restoreBuffers(WireIn in);

    @Override public final long received() { return received; }
    @Override public final long results() { return results; }
    @Override public final OperatorInfo info() { return info; }
}
