package air.dsl;

import air.runtime.api.CountWindow;
import air.runtime.api.SessionWindow;
import air.runtime.api.WindowDefinition;
import java.time.Duration;
import java.util.Objects;

/**
 * Window shapes: event-time windows aligned to the epoch (tumbling, sliding), and windows cut
 * from each key's own records (sessions, counts), which only a keyed stream has.
 */
public final class Windows {

    private Windows() {
    }

    /** Back-to-back windows of {@code sizeMs} of event time: [0, size), [size, 2 size), ...; each record is in one. */
    public static WindowDefinition tumbling(long sizeMs) {
        if (sizeMs <= 0) {
            throw new IllegalArgumentException("Windows.tumbling(sizeMs): sizeMs must be > 0, was " + sizeMs);
        }
        try {
            return new WindowDefinition(sizeMs, sizeMs);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Windows.tumbling(" + sizeMs + "): " + e.getMessage(), e);
        }
    }

    /** {@link #tumbling(long)} of {@code size} (whole milliseconds). */
    public static WindowDefinition tumbling(Duration size) {
        Objects.requireNonNull(size, "Windows.tumbling(size): size is null");
        return tumbling(size.toMillis());
    }

    /** Windows of {@code sizeMs} starting every {@code slideMs}; size must be a multiple of slide. */
    public static WindowDefinition sliding(long sizeMs, long slideMs) {
        if (sizeMs <= 0) {
            throw new IllegalArgumentException("Windows.sliding(sizeMs, slideMs): sizeMs must be > 0, was " + sizeMs);
        }
        if (slideMs <= 0) {
            throw new IllegalArgumentException("Windows.sliding(sizeMs, slideMs): slideMs must be > 0, was " + slideMs);
        }
        try {
            return new WindowDefinition(sizeMs, slideMs);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Windows.sliding(" + sizeMs + ", " + slideMs + "): " + e.getMessage(), e);
        }
    }

    /** {@link #sliding(long, long)} of {@code size} every {@code slide} (whole milliseconds). */
    public static WindowDefinition sliding(Duration size, Duration slide) {
        Objects.requireNonNull(size, "Windows.sliding(size, slide): size is null");
        Objects.requireNonNull(slide, "Windows.sliding(size, slide): slide is null");
        return sliding(size.toMillis(), slide.toMillis());
    }

    /**
     * Event-time session windows per key with a gap of {@code gapMs}: a key's session ends when its
     * next record comes more than {@code gapMs} after the previous one (as Flink's
     * {@code EventTimeSessionWindows.withGap}: each record's {@code [t, t + gap)} merged while they
     * overlap or touch). Results are {@code WindowResult(start, end, key, value)} with {@code start} the
     * first record's time and {@code end} the last record's time + gap, emitted once progress
     * passes {@code end}. Only after {@code keyBy(...)}; aggregate or reduce it (no top-k, no join).
     * Routed by key whatever the job's routing. See docs/dsl.md, "Session and count windows".
     */
    public static SessionWindow session(long gapMs) {
        if (gapMs <= 0 || gapMs > SessionWindow.MAX_GAP_MS) {
            throw new IllegalArgumentException("Windows.session(gapMs): gapMs must be in [1, " + SessionWindow.MAX_GAP_MS + "], was "
                    + gapMs);
        }
        return new SessionWindow(gapMs);
    }

    /** {@link #session(long)} with a gap of {@code gap} (whole milliseconds). */
    public static SessionWindow session(Duration gap) {
        Objects.requireNonNull(gap, "Windows.session(gap): gap is null");
        return session(gap.toMillis());
    }

    /**
     * Count windows per key: every {@code n} records of a key make one window, emitted as soon as
     * it is full, as {@code WindowResult(start, end, key, value)} with {@code [start, end)} the
     * event times of its records. A key's records count in the order they reach its owner (see
     * docs/dsl.md for what that is with several source instances); a window still short of
     * {@code n} when the input ends is dropped, as in Flink. Only after {@code keyBy(...)}.
     */
    public static CountWindow count(long n) {
        if (n < 1) {
            throw new IllegalArgumentException("Windows.count(n): n must be >= 1, was " + n);
        }
        return new CountWindow(n);
    }
}
