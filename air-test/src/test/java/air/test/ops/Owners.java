package air.test.ops;

import air.runtime.api.WindowDefinition;
import air.runtime.impl.routing.AirRouting;
import air.runtime.impl.routing.KeyRouting;
import air.runtime.impl.shuffle.FrameAccumulators;
import air.test.OperatorCheck;

/** Where the shuffle in front of an operator sends a one-key partial, for the rescale checks. */
final class Owners {

    private Owners() {
    }

    /** KEY routing, long keys: the owner of the partial's key. */
    static OperatorCheck.Router byLongKey() {
        return (input, item, n) -> KeyRouting.ownerOf(((FrameAccumulators) item).keyAt(0), true, n);
    }

    /** KEY routing, object keys. */
    static OperatorCheck.Router byObjectKey() {
        return (input, item, n) -> KeyRouting.ownerOf(((FrameAccumulators) item).keyAt(0), false, n);
    }

    /** AIR routing of a tumbling window: the owner of the window the frame is. */
    static OperatorCheck.Router byWindow(WindowDefinition window) {
        return (input, item, n) -> AirRouting.ownerOfWindow(((FrameAccumulators) item).frameStart(), window, n);
    }
}
