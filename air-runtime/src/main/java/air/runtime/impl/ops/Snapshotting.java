package air.runtime.impl.ops;

import air.wire.WireIn;
import air.wire.WireOut;

/**
 * An operator with state that a checkpoint captures. Both calls happen on the operator's own
 * tasklet thread between batches, so they see a quiet operator; {@code frames} encodes the keys and
 * accumulators of window frames (null for operators without frames).
 */
public interface Snapshotting {

    void snapshotTo(WireOut out, long checkpointId, ShuffleItemCodec frames);

    void restoreFrom(WireIn in, ShuffleItemCodec frames);
}
