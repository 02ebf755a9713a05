package air.runtime.impl.routing;

import air.runtime.api.WindowDefinition;
import air.runtime.impl.shuffle.DrainableFrame;
import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.ShuffleItem;
import air.runtime.impl.shuffle.ShuffleOutput;
import air.runtime.plan.Routing;

/**
 * Where the partials of a window aggregation go, and who emits which window: one object per job,
 * chosen from the plan's {@link Routing}, so that neither window operator tests the mode.
 */
public interface WindowRouter {

    /** The router for {@code routing} over {@code window}. */
    static WindowRouter of(Routing routing, WindowDefinition window) {
        return switch (routing) {
            case KEY -> new KeyRouter();
            case AIR -> new AirRouter(window);
        };
    }

    /**
     * Sends a finished frame's partials from {@code out}'s producer and leaves the frame empty.
     *
     * @return the number of (key, accumulator) entries sent
     */
    long ship(long frameStart, DrainableFrame frame, ShuffleOutput out);

    /** Hew-meld: sends a producer's credit for an epoch it had data for, right behind that data. */
    void sendCredit(ShuffleItem.Credit credit, ShuffleOutput out);

    /** Whether final instance {@code instance} of {@code instances} emits the window starting at {@code windowStart}. */
    boolean emits(long windowStart, int instance, int instances);

    /**
     * Restore onto another layout: the share of {@code frame}, as an earlier final instance held
     * it, that final instance {@code instance} of {@code instances} owns now, or null for none.
     * {@code firstCopy}: no lower earlier instance held a frame of this start. Under AIR routing
     * each owner of a frame holds all of it, so one copy is taken; under KEY routing each held its
     * keys' share, and every share counts. The frame is not used afterwards.
     */
    FrameAccumulators shareOf(long frameStart, DrainableFrame frame, boolean firstCopy, int instance, int instances);

    /** Sends one partial, counting its entries. */
    static long send(ShuffleOutput out, int destination, FrameAccumulators partial) {
        out.send(destination, partial);
        return partial.size();
    }
}
