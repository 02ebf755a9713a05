package air.runtime.impl.ops;

/**
 * The last operator of a fused chain, as checkpointing sees it: the place where a barrier leaves
 * the chain, and what is done again when a tasklet is restored as already finished. An interface
 * because operators may be per-job copies of their class, which {@code instanceof} on the class
 * would not recognise.
 */
public interface ChainTail {

    /** Sends checkpoint {@code id}'s barrier downstream behind everything sent so far (nothing at a sink). */
    void emitBarrier(long id);

    /** Restored as finished: says again downstream that this instance ended, or closes the sink. */
    void endAgainAfterRestore();

    /** Restored from checkpoint {@code id}: the next barrier this chain sends is {@code id + 1}. */
    default void restoredAt(long id) {
    }
}
