package air.runtime.impl.exec;

import air.wire.WireIn;
import air.wire.WireOut;
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
 *
 * <p>It also drops what it already has from a producer, which replication needs (a producer
 * replayed from a snapshot, or one that sends its log again to a restored instance, repeats
 * items): per producer, frames arrive in ascending frame order, credit in ascending epoch order
 * and barriers in ascending number, so anything at or below what was already taken is a repeat.
 * These marks are part of the checkpoint.
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
    /** Per producer: the newest frame taken, and the epoch below which its credit is all in. */
    private final long[] lastFrame;
    private final long[] creditFrontier;
    private long repeats;
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
        this.lastFrame = new long[producers];
        this.creditFrontier = new long[producers];
        java.util.Arrays.fill(lastFrame, Long.MIN_VALUE);
        java.util.Arrays.fill(creditFrontier, Long.MIN_VALUE);
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
        inbox.close();
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

    /** The item, trimmed to what is new from its producer, or null when all of it was taken before. */
    private ShuffleItem fresh(ShuffleItem item) {
        int p = item.producer();
        switch (item) {
            case air.runtime.impl.ops.FramePartial f -> {
                if (f.frameStart() <= lastFrame[p]) {
                    return null;
                }
                lastFrame[p] = f.frameStart();
            }
            case ShuffleItem.Credit c -> {
                if (c.epoch() < creditFrontier[p]) {
                    return null;
                }
                creditFrontier[p] = c.epoch() + head.slide();
            }
            case ShuffleItem.CreditRange r -> {
                if (r.to() <= creditFrontier[p]) {
                    return null;
                }
                ShuffleItem trimmed = r.from() < creditFrontier[p] ? new ShuffleItem.CreditRange(p, creditFrontier[p], r.to()) : r;
                creditFrontier[p] = r.to();
                return trimmed;
            }
            case ShuffleItem.Barrier b -> {
                if (b.id() <= barrierOf[p]) {
                    return null;
                }
            }
            default -> { }
        }
        return item;
    }

    private boolean process(ShuffleItem item) {
        ShuffleItem fresh = fresh(item);
        if (fresh == null) {
            repeats++;
            return false;
        }
        return processFresh(fresh);
    }

    private boolean processFresh(ShuffleItem item) {
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
        int producers = in.getCount(17);
        if (producers != ended.length) {
            throw in.malformed("checkpointed state for " + producers + " producers, this instance has " + ended.length);
        }
        for (int p = 0; p < producers; p++) {
            ended[p] = in.getByte() == 1;
            lastFrame[p] = in.getLong();
            creditFrontier[p] = in.getLong();
        }
        return state.restoreChain(in, finished, checkpoints, () -> capture(true, 0));
    }

    private WireOut capture(boolean finished, long id) {
        WireOut out = new WireOut(256);
        out.putByte(finished ? 1 : 0).putInt(ended.length);
        for (int p = 0; p < ended.length; p++) {
            out.putByte(ended[p] ? 1 : 0).putLong(lastFrame[p]).putLong(creditFrontier[p]);
        }
        state.snapshotTo(out, id);
        return out;
    }

    @Override
    protected String position() {
        return "shuffle item #" + taken + (repeats > 0 ? " (" + repeats + " repeat(s) dropped)" : "");
    }
}
