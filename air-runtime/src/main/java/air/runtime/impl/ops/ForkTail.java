package air.runtime.impl.ops;

import java.util.List;

/** The tails of a fork's branches as checkpointing sees them: each barrier and end goes down every branch. */
public final class ForkTail implements ChainTail {

    private final List<ChainTail> branches;

    public ForkTail(List<ChainTail> branches) {
        this.branches = List.copyOf(branches);
    }

    @Override
    public void emitBarrier(long id) {
        for (ChainTail t : branches) {
            t.emitBarrier(id);
        }
    }

    @Override
    public void endAgainAfterRestore() {
        for (ChainTail t : branches) {
            t.endAgainAfterRestore();
        }
    }

    @Override
    public void restoredAt(long id) {
        for (ChainTail t : branches) {
            t.restoredAt(id);
        }
    }
}
