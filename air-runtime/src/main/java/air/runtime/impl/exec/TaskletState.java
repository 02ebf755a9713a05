package air.runtime.impl.exec;

import air.channels.WireIn;
import air.channels.WireOut;
import air.runtime.impl.ops.ChainTail;
import air.runtime.impl.ops.ShuffleItemCodec;
import air.runtime.impl.ops.Snapshotting;
import java.util.List;

/**
 * What a checkpoint captures of one tasklet's fused chain: the stateful operators in chain order
 * (each with the codec of its window frames) and the tail, which passes barriers on. Named in
 * the checkpoint by vertex and global instance.
 */
final class TaskletState {

    /** A stateful operator of the chain and the codec of its frames (null when it has none). */
    record Stateful(Snapshotting op, ShuffleItemCodec frames) { }

    private final String part;
    private final List<Stateful> ops;
    private final ChainTail tail;

    TaskletState(String part, List<Stateful> ops, ChainTail tail) {
        this.part = part;
        this.ops = List.copyOf(ops);
        this.tail = tail;
    }

    String part() {
        return part;
    }

    void snapshotTo(WireOut out, long id) {
        for (Stateful s : ops) {
            s.op().snapshotTo(out, id, s.frames());
        }
    }

    void restoreFrom(WireIn in) {
        for (Stateful s : ops) {
            s.op().restoreFrom(in, s.frames());
        }
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
