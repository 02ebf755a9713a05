package air.runtime.impl.routing;

import air.runtime.api.WindowDefinition;
import air.runtime.impl.shuffle.DrainableFrame;
import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.ShuffleItem;
import air.runtime.impl.shuffle.ShuffleOutput;

/**
 * AIR routing (asynchronous iterative routing): every partial of window {@code k} goes to
 * instance {@code k mod n}, so successive windows are finalised on successive instances with no
 * coordinator. A frame of a sliding window belongs to several windows: it goes to the owner of
 * each (copies for all but the last), with its credit, and each owner emits only its own windows.
 */
final class AirRouter implements WindowRouter {

    private final WindowDefinition window;

    AirRouter(WindowDefinition window) {
        this.window = window;
    }

    @Override
    public long ship(long frameStart, DrainableFrame frame, ShuffleOutput out) {
        int[] owners = AirRouting.ownersOfFrame(frameStart, window, out.destinations());
        long sent = 0;
        for (int i = 0; i < owners.length; i++) {
            boolean last = i == owners.length - 1;
            sent += WindowRouter.send(out, owners[i],
                    last ? frame.drainAll(out.producer(), frameStart) : frame.copyAll(out.producer(), frameStart));
        }
        return sent;
    }

    @Override
    public void sendCredit(ShuffleItem.Credit credit, ShuffleOutput out) {
        for (int owner : AirRouting.ownersOfFrame(credit.epoch(), window, out.destinations())) {
            out.send(owner, credit);
        }
    }

    @Override
    public FrameAccumulators shareOf(long frameStart, DrainableFrame frame, boolean firstCopy, int instance, int instances) {
        if (firstCopy) {
            for (int owner : AirRouting.ownersOfFrame(frameStart, window, instances)) {
                if (owner == instance) {
                    return frame.drainAll(0, frameStart);
                }
            }
        }
        return null;
    }

    @Override
    public boolean emits(long windowStart, int instance, int instances) {
        return AirRouting.ownerOfWindow(windowStart, window, instances) == instance;
    }
}
