package air.runtime.impl.exec;

import air.runtime.impl.checkpoint.PartSections;
import air.runtime.impl.inbound.InboundEdge;
import air.runtime.impl.ops.ProgressSnapshot;
import air.runtime.impl.shuffle.Inbox;
import air.runtime.impl.shuffle.ShuffleItem;
import air.runtime.operator.Rescale;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.List;

/**
 * Runs one instance of an operator behind an inbound edge: takes items from its inbox and hands
 * them to the edge until every input ended. Whatever the edge's protocols need of the tasklet
 * (a checkpoint's capture when a barrier is aligned, the restore on start) happens here; the
 * protocols themselves are the edge's.
 */
final class OperatorTasklet extends Tasklet {

    private final Inbox inbox;
    private final TaskletState state;
    private final Checkpointing checkpoints;
    private InboundEdge edge;
    private long taken;

    OperatorTasklet(JobContext job, String name, Inbox inbox, TaskletState state, Checkpointing checkpoints) {
        super(job, name);
        this.inbox = inbox;
        this.state = state;
        this.checkpoints = checkpoints;
    }

    /** Binds the edge, which is built with {@link #onAligned} as its barrier callback. */
    void bind(InboundEdge edge) {
        this.edge = edge;
    }

    /** The edge's checkpoint is aligned on every producer: captures this instance and passes the barrier on. */
    void onAligned(long id) {
        checkpoints.offer(id, state.part(), capture(false, id));
        state.emitBarrier(id);
    }

    @Override
    protected void runBody() {
        if (checkpoints.enabled() && restore()) {
            return;
        }
        boolean done = false;
        try {
            while (!done) {
                long wait = edge.idleWakeupNanos();
                ShuffleItem item = (ShuffleItem) (wait == Long.MAX_VALUE ? inbox.take() : inbox.take(wait));
                if (item == null) {
                    edge.onIdle(); // processing-time timers: nothing came for as long as the operator wanted to wait
                    continue;
                }
                taken++;
                done = edge.accept(item);
                inbox.doneWithItem(edge.heldItems());
            }
        } finally {
            edge.close(); // what alignment still holds (its spill files) goes, however the loop ended
        }
        if (checkpoints.enabled()) {
            checkpoints.finished(state.part(), lastState());
        }
        inbox.close();
    }

    /** Back to the restored checkpoint; true when this instance had already finished there. */
    private boolean restore() {
        if (!checkpoints.resuming()) {
            return false;
        }
        if (checkpoints.rescaling()) {
            Rescale rescale = state.headRescaled(checkpoints);
            if (rescale != null) { // else the edge and its operator start empty (new, or changed, in this pipeline)
                state.restoreHeadRescaled(rescale, checkpoints, edge::restoreRescaled);
            }
            return state.restoreChain(false, checkpoints, this::lastState);
        }
        List<WireIn> states = state.headStates(checkpoints);
        boolean finished = false;
        if (states != null) { // else the edge and its operator start empty (new, or changed, in this pipeline)
            WireIn in = states.get(0);
            finished = in.getByte() == 1;
            edge.restoreFrom(in);
            for (WireIn changes : states.subList(1, states.size())) {
                finished = changes.getByte() == 1;
                edge.restoreChanges(changes);
            }
        }
        return state.restoreChain(finished, checkpoints, this::lastState);
    }

    /** The part that stands for this ended instance, captured under the first checkpoint that will hold it. */
    private WireOut lastState() {
        return capture(true, checkpoints.firstHolding(state.part())).done();
    }

    /**
     * The part: whether this instance finished, its edge and operator as the head's state (or, in
     * an incremental checkpoint, what the operator changed since), then the chain's operators.
     */
    private PartSections capture(boolean finished, long id) {
        boolean full = finished || checkpoints.full(id);
        return state.capture(head -> {
            head.putByte(finished ? 1 : 0);
            if (!full && edge.snapshotChangesTo(head, id)) {
                return true;
            }
            edge.snapshotTo(head, id);
            return false;
        }, id, full);
    }

    /** What this instance waits for, published by its edge; safe to read from any thread. */
    ProgressSnapshot progress() {
        return edge.progress();
    }

    @Override
    protected String position() {
        long repeats = edge == null ? 0 : edge.repeats();
        return "shuffle item #" + taken + (repeats > 0 ? " (" + repeats + " repeat(s) dropped)" : "");
    }
}
