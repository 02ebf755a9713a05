package air.runtime.impl.routing;

import air.runtime.impl.shuffle.DrainableFrame;
import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.ShuffleItem;
import air.runtime.impl.shuffle.ShuffleOutput;

/**
 * KEY routing, the usual way: each key's partial goes to the owner of its hash, so every final
 * instance sees a share of every window and emits that share; credit goes to every instance, each
 * its own credit domain.
 */
final class KeyRouter implements WindowRouter {

    @Override
    public long ship(long frameStart, DrainableFrame frame, ShuffleOutput out) {
        FrameAccumulators[] partials = frame.drain(out.producer(), frameStart, out.destinations());
        long sent = 0;
        for (int d = 0; d < partials.length; d++) {
            if (partials[d] != null) {
                sent += WindowRouter.send(out, d, partials[d]);
            }
        }
        return sent;
    }

    @Override
    public void sendCredit(ShuffleItem.Credit credit, ShuffleOutput out) {
        out.broadcast(credit);
    }

    @Override
    public FrameAccumulators shareOf(long frameStart, DrainableFrame frame, boolean firstCopy, int instance, int instances) {
        return frame.drain(0, frameStart, instances)[instance];
    }

    @Override
    public boolean emits(long windowStart, int instance, int instances) {
        return true;
    }
}
