package air.runtime.impl.exec;

import air.channels.WireIn;
import air.channels.WireOut;
import air.runtime.impl.ops.ShuffleItem;
import air.runtime.impl.ops.WindowFinal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Drains a shuffle inbox into the final half of a window aggregation until every producer ended.
 * With checkpoints it aligns barriers: once a producer's barrier for the next checkpoint has
 * arrived, that producer's later items wait until every producer's barrier (or end of stream) is
 * in; then the chain's state is captured and the waiting items run. A producer's repeated end of
 * stream (sent again after a restore) is ignored.
 */
final class FinalTasklet extends Tasklet {

    private final Inbox inbox;
    private final WindowFinal head;
    private final TaskletState state;
    private final Checkpointing checkpoints;
    private long taken;
    private long[] barrierOf;
    private boolean[] ended;
    private long aligning;
    private final ArrayDeque<ShuffleItem> held = new ArrayDeque<>();

    FinalTasklet(JobContext job, String name, Inbox inbox, WindowFinal head, int producers, TaskletState state,
                 Checkpointing checkpoints) {
        super(job, name);
        this.inbox = inbox;
        this.head = head;
        this.state = state;
        this.checkpoints = checkpoints;
        this.barrierOf = new long[producers];
        this.ended = new boolean[producers];
    }

    @Override
    protected void runBody() {
        if (checkpoints.enabled() && restore()) {
            return;
        }
        boolean done = false;
        while (!done) {
            ShuffleItem item = (ShuffleItem) inbox.take();
            taken++;
            done = checkpoints.enabled() ? onAligned(item) : head.onItem(item);
        }
        if (checkpoints.enabled()) {
            checkpoints.finished(state.part(), capture(true, 0));
        }
    }

    /** Checkpoint mode: holds back what follows a barrier until the checkpoint is aligned. */
    private boolean onAligned(ShuffleItem item) {
        int p = item.producer();
        if (barrierOf[p] >= aligning) {
            held.add(item);
            return false;
        }
        return process(item);
    }

    private boolean process(ShuffleItem item) {
        int p = item.producer();
        boolean done = false;
        if (item instanceof ShuffleItem.Barrier b) {
            if (b.id() != barrierOf[p] + 1) {
                throw new IllegalStateException("barrier " + b.id() + " from producer " + p + " after barrier " + barrierOf[p]);
            }
            barrierOf[p] = b.id();
        } else if (item instanceof ShuffleItem.EndOfStream) {
            if (ended[p]) {
                return false;
            }
            ended[p] = true;
            done = head.onItem(item);
        } else {
            done = head.onItem(item);
        }
        if (aligned()) {
            checkpoints.offer(aligning, state.part(), capture(false, aligning));
            state.emitBarrier(aligning);
            aligning++;
            List<ShuffleItem> release = new ArrayList<>(held);
            held.clear();
            for (ShuffleItem h : release) {
                if (done) {
                    break; // the aggregation completed: what is left can only be its producers' last words
                }
                done = onAligned(h);
            }
        }
        return done;
    }

    private boolean aligned() {
        boolean anyBarrier = false;
        for (int p = 0; p < barrierOf.length; p++) {
            if (barrierOf[p] < aligning && !ended[p]) {
                return false;
            }
            anyBarrier |= barrierOf[p] >= aligning;
        }
        return anyBarrier;
    }

    /** Back to the restored checkpoint; true when this instance had already finished there. */
    private boolean restore() {
        aligning = checkpoints.restoredId() + 1;
        java.util.Arrays.fill(barrierOf, checkpoints.restoredId());
        WireIn in = checkpoints.restoredPart(state.part());
        if (in == null) {
            return false;
        }
        boolean finished = in.getByte() == 1;
        int producers = in.getCount(1);
        if (producers != ended.length) {
            throw in.malformed("checkpointed state for " + producers + " producers, this instance has " + ended.length);
        }
        for (int p = 0; p < producers; p++) {
            ended[p] = in.getByte() == 1;
        }
        return state.restoreChain(in, finished, checkpoints, () -> capture(true, 0));
    }

    private WireOut capture(boolean finished, long id) {
        WireOut out = new WireOut(256);
        out.putByte(finished ? 1 : 0).putInt(ended.length);
        for (boolean e : ended) {
            out.putByte(e ? 1 : 0);
        }
        state.snapshotTo(out, id);
        return out;
    }

    @Override
    protected String position() {
        return "shuffle item #" + taken;
    }
}
