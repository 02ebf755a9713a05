package air.dsl;

import air.runtime.api.WindowDefinition;
import java.time.Duration;
import java.util.Objects;

/** Event-time window shapes, aligned to the epoch. */
public final class Windows {

    private Windows() {
    }

    /** Back-to-back windows of {@code sizeMs} of event time: [0, size), [size, 2 size), ...; each record is in one. */
    public static WindowDefinition tumbling(long sizeMs) {
        if (sizeMs <= 0) {
            throw new IllegalArgumentException("Windows.tumbling(sizeMs): sizeMs must be > 0, was " + sizeMs);
        }
        return new WindowDefinition(sizeMs, sizeMs);
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
}
