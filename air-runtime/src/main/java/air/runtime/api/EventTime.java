package air.runtime.api;

/**
 * The event times and time spans the engine handles, in milliseconds since the epoch. Window
 * arithmetic adds spans to times ({@code start + size}, {@code frame + slide}, a session's last
 * record plus its gap, a watermark minus the allowed disorder and lateness); keeping times within
 * {@code ±2^62} ms (about ±146 million years) and each span within {@code 2^60} ms (about 36
 * million years) keeps every such sum exact in a {@code long}, with {@code Long.MIN_VALUE} and
 * {@code Long.MAX_VALUE} left free as "no time" and "end of input". A record whose timestamp
 * function gives a time outside {@link #MIN} .. {@link #MAX} is a bad record (the stage's
 * bad-record policy decides: fail naming it, skip and count, or dead-letter); a window size, slide
 * or allowed disorder beyond {@link #MAX_SPAN} is refused when the pipeline is built.
 */
public final class EventTime {

    /** The latest event time a record may carry: {@code 2^62} ms. */
    public static final long MAX = 1L << 62;
    /** The earliest event time a record may carry: {@code -2^62} ms. */
    public static final long MIN = -MAX;
    /** The longest window size, slide, gap, allowed disorder or lateness: {@code 2^60} ms. */
    public static final long MAX_SPAN = 1L << 60;

    private EventTime() {
    }

    /** Whether {@code ts} is an event time a record may carry. */
    public static boolean inRange(long ts) {
        return ts >= MIN && ts <= MAX;
    }
}
