package air.runtime.impl.exec;

import air.runtime.impl.checkpoint.OperatorId;
import air.runtime.impl.checkpoint.PartSections;
import air.runtime.impl.ops.ChainTail;
import air.runtime.impl.ops.Snapshotting;
import air.runtime.operator.Rescale;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * What a checkpoint captures of one tasklet's fused chain: its head (a source's position, an
 * inbound edge and its operator), the stateful operators in chain order, each under its stable
 * id ({@link PartSections}), and the tail, which passes barriers on. Named in the checkpoint by
 * vertex and global instance; restored operator by operator, so that a changed pipeline restores
 * what it still has and starts the rest empty.
 */
final class TaskletState {

    /** A stateful operator of the chain and the id its state is filed under. */
    record Op(OperatorId id, Snapshotting op) { }

    private final String part;
    private final OperatorId head;
    private final List<Op> ops;
    private final ChainTail tail;
    /** The sizes of this tasklet's previous whole part and part of changes: where the next one's buffer starts. */
    private int lastWholeBytes;
    private int lastChangesBytes;
    /** The buffer parts are captured into, reused while it fits them (each part is copied out when offered). */
    private WireOut buffer;

    TaskletState(String part, OperatorId head, List<Op> ops, ChainTail tail) {
        this.part = part;
        this.head = head;
        this.ops = List.copyOf(ops);
        this.tail = tail;
    }

    String part() {
        return part;
    }

    /**
     * The tasklet's part: what {@code head} writes of the chain's head under the head's id (it
     * says whether it wrote only changes), then each operator's: its whole state when {@code full},
     * else what it changed since its previous snapshot where it can tell (incremental checkpoints).
     * Everything is written in place into one buffer sized after the previous part of the same kind.
     */
    PartSections capture(PartSections.StateWriter head, long id, boolean full) {
        int hint = full ? lastWholeBytes : lastChangesBytes;
        int wanted = (int) Math.min(Integer.MAX_VALUE - 64, hint + hint / 4L + 256);
        if (buffer == null || buffer.capacity() < wanted || buffer.capacity() > 4L * wanted + (1 << 20)) {
            buffer = new WireOut(wanted); // none yet, or far larger than the parts now: the state shrank
        }
        PartSections sections = new PartSections(1 + ops.size(), buffer);
        sections.add(this.head, head);
        for (Op o : ops) {
            sections.add(o.id(), out -> !full && o.op().snapshotChangesTo(out, id) || writeWhole(o, out, id));
        }
        int bytes = sections.done().size();
        if (full) {
            lastWholeBytes = bytes;
        } else {
            lastChangesBytes = bytes;
        }
        return sections;
    }

    /** Writes {@code o}'s whole state; false: not changes. */
    private static boolean writeWhole(Op o, WireOut out, long id) {
        o.op().snapshotTo(out, id);
        return false;
    }

    /** The head's saved state in a resumed run, or null when the head starts empty. */
    WireIn headState(Checkpointing checkpoints) {
        return checkpoints.restoredState(head.id());
    }

    /** Resumed onto another layout: the head's share of what every earlier instance saved, or null when none did. */
    Rescale headRescaled(Checkpointing checkpoints) {
        return checkpoints.rescaled(head.id());
    }

    /** The head's saved states in a resumed run (whole, then the changes after it), or null when the head starts empty. */
    List<WireIn> headStates(Checkpointing checkpoints) {
        return checkpoints.restoredStates(head.id());
    }

    /**
     * Restores every chain operator that has saved state (the others start empty); when the
     * tasklet had finished at the checkpoint, ends it again and hands its last state
     * ({@code finalState}) to the checkpoints.
     *
     * @return whether the tasklet had finished
     */
    boolean restoreChain(boolean finished, Checkpointing checkpoints, Supplier<WireOut> finalState) {
        for (Op o : ops) {
            if (checkpoints.rescaling()) {
                restoreRescaled(o.id(), o.op(), checkpoints);
                continue;
            }
            List<WireIn> states = checkpoints.restoredStates(o.id().id());
            if (states != null) {
                o.op().restoreFrom(states.get(0));
                for (WireIn changes : states.subList(1, states.size())) {
                    o.op().restoreChanges(changes);
                }
            }
        }
        tail.restoredAt(checkpoints.restoredId());
        checkpoints.restored();
        if (finished) {
            endRestoredFinished();
            checkpoints.finished(part, finalState.get());
        }
        return finished;
    }

    /**
     * Resumed onto another layout: operator {@code op} restores its share of what every earlier
     * instance saved under {@code id} (none saved: it starts empty); one that cannot move its
     * state fails the start, naming itself.
     */
    static void restoreRescaled(OperatorId id, Snapshotting op, Checkpointing checkpoints) {
        Rescale rescale = checkpoints.rescaled(id.id());
        if (rescale == null) {
            return;
        }
        try {
            op.restoreRescaled(rescale);
        } catch (UnsupportedOperationException e) {
            throw cannotMove("operator " + id.id(), rescale, checkpoints.restoredId(), e);
        }
    }

    /** The head's share of what every earlier instance saved: {@link #restoreRescaled} for the chain's head. */
    void restoreHeadRescaled(Rescale rescale, Checkpointing checkpoints, Consumer<Rescale> head) {
        try {
            head.accept(rescale);
        } catch (UnsupportedOperationException e) {
            throw cannotMove("operator " + this.head.id(), rescale, checkpoints.restoredId(), e);
        }
    }

    /** Why a restore onto another layout fails: {@code who} (an operator, a source) cannot move its state ({@code rescale}: which share). */
    static IllegalStateException cannotMove(String who, Rescale rescale, long checkpoint, UnsupportedOperationException e) {
        return new IllegalStateException(who + " cannot resume onto another layout" + (rescale == null ? "" : " (" + rescale + ")") + ": "
                + e.getMessage() + ". Resume with the peers and workers that wrote checkpoint " + checkpoint + ", or start afresh", e);
    }

    /** Sends the barrier of checkpoint {@code id} downstream, behind everything the chain has sent. */
    void emitBarrier(long id) {
        tail.emitBarrier(id);
    }

    /**
     * The tasklet had finished at the checkpoint it is restored from: what it sent at its end goes
     * out again (downstream instances ignore a repeated end of stream) and its sinks are closed.
     */
    void endRestoredFinished() {
        tail.endAgainAfterRestore();
    }
}
