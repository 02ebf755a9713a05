package air.runtime.impl.shuffle;

/**
 * What a router asks of a frame (the per-key accumulators of one slide-long pane of event time):
 * to move or copy them into partials for the destinations that own their keys. The frames
 * themselves, which accumulate records and emit results, are the operators'.
 */
public interface DrainableFrame {

    /**
     * Moves every accumulator into per-destination partials ({@code null} where a destination owns
     * no key of this frame) and leaves this frame empty.
     */
    FrameAccumulators[] drain(int producer, long frameStart, int destinations);

    /** Moves every accumulator into one partial for a single destination and leaves this frame empty. */
    FrameAccumulators drainAll(int producer, long frameStart);

    /** A partial with copies of every accumulator (made with create + combine); this frame is unchanged. */
    FrameAccumulators copyAll(int producer, long frameStart);
}
