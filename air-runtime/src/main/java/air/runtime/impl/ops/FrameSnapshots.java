package air.runtime.impl.ops;

import air.channels.WireIn;
import air.channels.WireOut;

/**
 * Window frames in checkpoints: each frame as a partial of copies of its accumulators (the frame
 * itself is left as it is), in the shuffle's wire form, and back. Operators call these in loops
 * of their own: per-job operator copies may hold no lambdas.
 */
final class FrameSnapshots {

    private FrameSnapshots() {
    }

    static <T> void write(WireOut out, long frameStart, KeyedFrame<T> frame, ShuffleItemCodec codec) {
        codec.write(0, frame.copyAll(0, frameStart), out);
    }

    /** The next frame written by {@link #write}. */
    static FramePartial read(WireIn in, ShuffleItemCodec codec) {
        ShuffleItem item = codec.readEmbedded(in, 1, 1).item();
        if (!(item instanceof FramePartial p)) {
            throw in.malformed("a checkpointed window frame expected, found " + item);
        }
        return p;
    }
}
