package air.runtime.impl.exec;

import air.runtime.impl.ops.ChainTail;
import air.runtime.impl.ops.Snapshotting;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.List;
import java.util.function.Supplier;

/**
 * What a checkpoint captures of one tasklet's fused chain: the stateful operators in chain order
 * and the tail, which passes barriers on. Named in
 * the checkpoint by vertex and global instance.
 */
final class TaskletState {

    private final String part;
    private final List<Snapshotting> ops;
    private final ChainTail tail;

    TaskletState(String part, List<Snapshotting> ops, ChainTail tail) {
        this.part = part;
        this.ops = List.copyOf(ops);
        this.tail = tail;
    }

    String part() {
        return part;
    }

    void snapshotTo(WireOut out, long id) {
        for (Snapshotting s : ops) {
            s.snapshotTo(out, id);
        }
    }

    /**
     * Restores the chain from the rest of the tasklet's part; when the tasklet had finished at
     * the checkpoint, ends it again and hands its last state ({@code finalState}) to the checkpoints.
     *
     * @return whether the tasklet had finished
     */
    boolean restoreChain(WireIn in, boolean finished, Checkpointing checkpoints, Supplier<WireOut> finalState) {
        for (Snapshotting s : ops) {
            s.restoreFrom(in);
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
