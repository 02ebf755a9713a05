package air.runtime.api;

/**
 * An event-time window shape, aligned to the epoch: windows are {@code [k*slide, k*slide + size)}.
 * Tumbling windows have {@code slide == size}. The engine aggregates per frame of length
 * {@code slide} and combines {@code size / slide} frames per window, so size must be a multiple
 * of slide.
 */
public record WindowDefinition(long size, long slide) {

    public WindowDefinition {
        if (size <= 0) {
            throw new IllegalArgumentException("window size must be > 0 ms, was " + size);
        }
        if (slide <= 0) {
            throw new IllegalArgumentException("window slide must be > 0 ms, was " + slide);
        }
        if (size > EventTime.MAX_SPAN) {
            throw new IllegalArgumentException("window size must be at most EventTime.MAX_SPAN = " + EventTime.MAX_SPAN
                    + " ms (about 36 million years), was " + size);
        }
        if (slide > size) {
            throw new IllegalArgumentException("window slide (" + slide + " ms) must not exceed its size (" + size + " ms)");
        }
        if (size % slide != 0) {
            throw new IllegalArgumentException("window size (" + size + " ms) must be a multiple of its slide (" + slide + " ms)");
        }
    }

    public boolean isTumbling() {
        return size == slide;
    }

    /** Start of the frame (slide-long pane) holding event time {@code ts}. */
    public long frameStart(long ts) {
        return ts - Math.floorMod(ts, slide);
    }

    @Override
    public String toString() {
        return isTumbling() ? "tumbling(" + size + "ms)" : "sliding(" + size + "ms, " + slide + "ms)";
    }
}
