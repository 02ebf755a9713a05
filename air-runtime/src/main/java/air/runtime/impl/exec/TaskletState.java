package air.runtime.impl.exec;

import air.runtime.impl.checkpoint.OperatorId;
import air.runtime.impl.checkpoint.PartSections;
import air.runtime.impl.ops.ChainTail;
import air.runtime.impl.ops.Snapshotting;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.List;
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

    TaskletState(String part, OperatorId head, List<Op> ops, ChainTail tail) {
        this.part = part;
        this.head = head;
        this.ops = List.copyOf(ops);
        this.tail = tail;
    }

    String part() {
        return part;
    }

    /** The tasklet's part: {@code headState} (what the tasklet wrote of its head) under the head's id, then each operator's. */
    WireOut capture(WireOut headState, long id) {
        PartSections sections = new PartSections(1 + ops.size()).add(head, headState);
        for (Op o : ops) {
            WireOut state = new WireOut(64);
            o.op().snapshotTo(state, id);
            sections.add(o.id(), state);
        }
        return sections.done();
    }

    /** The head's saved state in a resumed run, or null when the head starts empty. */
    WireIn headState(Checkpointing checkpoints) {
        return checkpoints.restoredState(head.id());
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
            WireIn in = checkpoints.restoredState(o.id().id());
            if (in != null) {
                o.op().restoreFrom(in);
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
