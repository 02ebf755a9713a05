package air.runtime.impl.ops;

import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.ShuffleItem;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.wire.WireIn;
import air.wire.WireOut;

/**
 * Window frames in checkpoints: each frame encoded, in the shuffle's wire form, straight from its
 * live accumulators (on the operator's thread, so nothing changes meanwhile), and back. Operators call these in loops
 * of their own: per-job operator copies may hold no lambdas.
 */
final class FrameSnapshots {

    private FrameSnapshots() {
    }

    static <T> void write(WireOut out, long frameStart, KeyedFrame<T> frame, ShuffleItemCodec codec) {
        frame.writeSnapshot(frameStart, codec, out);
    }

    /** The next frame written by {@link #write}. */
    static FrameAccumulators read(WireIn in, ShuffleItemCodec codec) {
        ShuffleItem item = codec.readEmbedded(in, 1, 1).item();
        if (!(item instanceof FrameAccumulators p)) {
            throw in.malformed("a checkpointed window frame expected, found " + item);
        }
        return p;
    }
}
