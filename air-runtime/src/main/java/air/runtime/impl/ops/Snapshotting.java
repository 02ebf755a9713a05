package air.runtime.impl.ops;

import air.wire.WireIn;
import air.wire.WireOut;

/**
 * An operator with state that a checkpoint captures. Both calls happen on the operator's own
 * tasklet thread between batches, so they see a quiet operator. An operator with window frames
 * holds the codec of their keys and accumulators itself.
 */
public interface Snapshotting {

    void snapshotTo(WireOut out, long checkpointId);

    void restoreFrom(WireIn in);
}
