package air.runtime.impl.ops;

import air.runtime.api.Emitter;

/**
 * The push interface between fused operators of one tasklet. Every implementation writes its own
 * {@code emit}: a shared default method would share one call-site profile across pipelines and
 * stop the JIT from inlining the chain.
 */
public interface Inlet<T> extends Emitter<T> {

    /** The timestamp of records that have none (before {@code withTimestamps}). */
    long NO_TIMESTAMP = Long.MIN_VALUE;

    void accept(long timestamp, T item);

    /** No record with a timestamp {@code <= watermark} will follow. */
    void onWatermark(long watermark);

    /** The tasklet finished a batch: a place to publish progress, never per record. */
    void onEndOfBatch();

    /** End of input: flush all state downstream. */
    void onComplete();
}
