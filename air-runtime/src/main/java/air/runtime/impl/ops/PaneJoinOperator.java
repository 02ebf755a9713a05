package air.runtime.impl.ops;

import air.runtime.operator.Operator;
import air.runtime.plan.OperatorInfo;
import air.wire.WireIn;
import air.wire.WireOut;

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
        panes.merge(input, (FramePartial) item);
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

    /** The subclass's own state, after the panes. */
    abstract void snapshotBuffers(WireOut out);

    abstract void restoreBuffers(WireIn in);

    @Override public final long received() { return received; }
    @Override public final long results() { return results; }
    @Override public final OperatorInfo info() { return info; }
}
