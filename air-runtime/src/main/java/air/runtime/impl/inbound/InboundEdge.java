package air.runtime.impl.inbound;

import air.runtime.impl.ops.Inlet;
import air.runtime.impl.ops.ProgressSnapshot;
import air.runtime.impl.progress.Completion;
import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.RecordBatch;
import air.runtime.impl.shuffle.ShuffleItem;
import air.runtime.operator.Operator;
import air.runtime.operator.Rescale;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.LongConsumer;

/**
 * Everything between an operator's inbox and the operator, in this order: barrier alignment,
 * repeat filtering, end-of-stream counting and progress coalescing (the completion strategy).
 * The operator sees only data, {@code onEpochComplete} / {@code onProgress}, and the end of its
 * input; downstream of it the edge forwards the watermark (when it grows) and the end of stream.
 *
 * <p>Several inputs share one producer numbering: input {@code i}'s producers are
 * {@code offset(i) .. offset(i+1) - 1}, so alignment, repeats and end counting need no input.
 */
public final class InboundEdge implements Completion.Listener {

    private final String operatorName;
    private final Operator operator;
    private final Inlet<?> downstream;
    private final Alignment alignment;
    private final RepeatFilter repeats;
    private final EndOfStreamCounter ends;
    private final Completion completion;
    private final int[] offsets;
    private final LongConsumer onAligned;
    private long forwardedWatermark = Long.MIN_VALUE;
    private boolean completed;
    private volatile ProgressSnapshot progress = ProgressSnapshot.IDLE;

    /**
     * @param producersPerInput how many producers feed each input
     * @param completion        the job's completion strategy, built with this edge as its listener
     * @param repeats           null when producers never repeat (no fault tolerance)
     * @param onAligned         captures the instance's state for the aligned checkpoint and passes its barrier on
     */
    public InboundEdge(String operatorName, Operator operator, Inlet<?> downstream, int[] producersPerInput,
                       Function<Completion.Listener, Completion> completion, Alignment alignment, RepeatFilter repeats,
                       LongConsumer onAligned) {
        this.operatorName = operatorName;
        this.operator = operator;
        this.downstream = downstream;
        this.alignment = alignment;
        this.repeats = repeats;
        this.onAligned = onAligned;
        this.offsets = new int[producersPerInput.length + 1];
        for (int i = 0; i < producersPerInput.length; i++) {
            offsets[i + 1] = offsets[i] + producersPerInput[i];
        }
        this.ends = new EndOfStreamCounter(offsets[producersPerInput.length]);
        this.completion = completion.apply(this);
    }

    /** Items taken from the inbox but held back for barrier alignment, not yet handled. */
    public int heldItems() {
        return alignment.heldCount();
    }

    /** The estimated bytes of the items held back in memory (at most the alignment's bound, the rest being spilled). */
    public long heldBytes() {
        return alignment.heldBytes();
    }

    /** The instance is done (finished, failed or cancelled): drops what the alignment still holds, deleting its spill files. */
    public void close() {
        alignment.close();
    }

    /** Takes one item from the inbox; true once every input ended and the operator finished. */
    public boolean accept(ShuffleItem item) {
        if (completed) {
            return true;
        }
        if (alignment.holds(item)) {
            return false;
        }
        process(item);
        long aligned = alignment.aligned(ends);
        if (aligned != 0) {
            onAligned.accept(aligned);
            try (Alignment.Released held = alignment.releaseHeld()) {
                for (ShuffleItem h : held) {
                    if (accept(h)) {
                        break; // completed: what is left can only be its producers' last words
                    }
                }
            }
        }
        return completed;
    }

    private void process(ShuffleItem raw) {
        ShuffleItem item = repeats == null ? raw : repeats.fresh(raw);
        if (item == null) {
            return;
        }
        int p = item.producer();
        int input = inputOf(p);
        int local = p - offsets[input];
        switch (item) {
            case FrameAccumulators f -> {
                operator.onItem(input, f);
                if (progress.oldestOpenEpoch() > f.frameStart()) {
                    publishProgress(); // it may open an epoch older than the one reported
                }
                return;
            }
            case RecordBatch r -> {
                operator.onItem(input, r);
                return;
            }
            case ShuffleItem.Barrier b -> {
                if (!alignment.isRepeat(b)) {
                    alignment.onBarrier(b);
                }
                return;
            }
            case ShuffleItem.EndOfStream e -> {
                if (!ends.end(p)) {
                    return;
                }
                completion.onEndOfStream(input, local);
            }
            case ShuffleItem.Watermark w -> completion.onWatermark(input, local, w.watermark());
            case ShuffleItem.Credit c -> completion.onCredit(input, local, c.epoch(), c.amount());
            case ShuffleItem.CreditRange r -> completion.onCreditRange(input, local, r.from(), r.to());
        }
        if (ends.allEnded()) {
            finish();
        }
        publishProgress();
    }

    /** How long the tasklet may wait for the next item before {@link #onIdle} (the operator's wish; none once completed). */
    public long idleWakeupNanos() {
        return completed ? Long.MAX_VALUE : operator.idleWakeupNanos();
    }

    /** No item came for {@link #idleWakeupNanos}: the operator may act on processing time. */
    public void onIdle() {
        if (!completed) {
            operator.onIdle();
        }
    }

    private void finish() {
        String incomplete = completion.incompleteAtEnd();
        if (incomplete != null) {
            throw new IllegalStateException(operatorName + ": " + incomplete);
        }
        operator.onEndOfInput();
        downstream.onComplete();
        completed = true;
    }

    private int inputOf(int producer) {
        int i = 0;
        while (producer >= offsets[i + 1]) {
            i++;
        }
        return i;
    }

    @Override
    public void onEpochComplete(long epochStart) {
        operator.onEpochComplete(epochStart);
    }

    @Override
    public void onProgress(long completeBelow) {
        operator.onProgress(completeBelow);
        long out = completeBelow == Long.MAX_VALUE ? Long.MAX_VALUE : operator.outputProgress(completeBelow);
        if (out == Long.MIN_VALUE) {
            return; // nothing complete downstream yet (and MIN - 1 would wrap to the end of time)
        }
        long wm = out == Long.MAX_VALUE ? Long.MAX_VALUE : out - 1;
        if (wm > forwardedWatermark) {
            forwardedWatermark = wm;
            downstream.onWatermark(wm);
            downstream.onEndOfBatch();
        }
    }

    private void publishProgress() {
        if (completed) {
            progress = ProgressSnapshot.IDLE;
            return;
        }
        long oldest = Math.min(completion.oldestIncomplete(), operator.oldestPending(completion.completeBelow()));
        progress = oldest == Long.MAX_VALUE ? ProgressSnapshot.IDLE : new ProgressSnapshot(oldest, completion.holders(oldest, offsets));
    }

    /** What this instance waits for; safe to read from any thread. */
    public ProgressSnapshot progress() {
        return progress;
    }

    /** Items dropped as repeats so far. */
    public long repeats() {
        return repeats == null ? 0 : repeats.repeats();
    }

    /** The edge's own state (ends, repeat marks, progress), then the operator's. */
    public void snapshotTo(WireOut out, long checkpointId) {
        writeEdgeState(out);
        operator.snapshotTo(out, checkpointId);
    }

    /**
     * Incremental checkpoints: the edge's state (small: always whole), then what its operator
     * changed since its previous snapshot; writes nothing and returns false when the operator
     * writes only whole snapshots.
     */
    public boolean snapshotChangesTo(WireOut out, long checkpointId) {
        int start = out.mark();
        writeEdgeState(out);
        if (!operator.snapshotChangesTo(out, checkpointId)) {
            out.truncate(start); // writing the edge's state has no side effects: dropping it is enough
            return false;
        }
        return true;
    }

    public void restoreFrom(WireIn in) {
        readEdgeState(in);
        operator.restoreFrom(in);
        publishProgress();
    }

    /** Applies what {@link #snapshotChangesTo} wrote, after {@link #restoreFrom} and the changes before. */
    public void restoreChanges(WireIn in) {
        readEdgeState(in);
        operator.restoreChanges(in);
        publishProgress();
    }

    /**
     * Resumed onto another layout: the edge starts afresh (its state counts the producers of the
     * layout that saved it), and the operator restores its share of what every earlier instance's
     * operator saved behind its edge's state ({@code rescale} holds the head's states: each the
     * finished flag, the framed edge state, the operator's state).
     *
     * @throws UnsupportedOperationException when the operator cannot move its state (its tasklet names it)
     */
    public void restoreRescaled(Rescale rescale) {
        List<List<WireIn>> operatorStates = new ArrayList<>(rescale.instancesBefore());
        for (int i = 0; i < rescale.instancesBefore(); i++) {
            List<WireIn> states = rescale.states(i);
            if (states != null) {
                for (WireIn in : states) {
                    in.getByte(); // finished: an instance of the new layout finishes when its own producers end
                    in.skip(in.getCount(1));
                }
            }
            operatorStates.add(states);
        }
        operator.restoreRescaled(new Rescale(rescale.instance(), rescale.instances(), operatorStates, rescale.checkpoint()));
        publishProgress();
    }

    /** The edge's own state, framed by its length so that a restore onto another layout can pass over it. */
    private void writeEdgeState(WireOut out) {
        int length = out.mark();
        out.putInt(0);
        ends.snapshotTo(out);
        if (repeats != null) {
            repeats.snapshotTo(out);
        }
        out.putLong(forwardedWatermark);
        completion.snapshotTo(out);
        out.putIntAt(length, out.mark() - length - 4);
    }

    private void readEdgeState(WireIn in) {
        in.getCount(1);
        ends.restoreFrom(in);
        if (repeats != null) {
            repeats.restoreFrom(in);
        }
        forwardedWatermark = in.getLong();
        completion.restoreFrom(in);
    }
}
