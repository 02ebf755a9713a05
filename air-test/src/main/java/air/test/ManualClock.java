package air.test;

import air.runtime.api.TimeSource;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Processing time that moves only when a test says: give it to a job with
 * {@code JobConfig.timeSource(clock)} (a {@link TestDriver} does) and a source counts as idle, or
 * a processing-time timer fires, exactly when the test {@link #advance}s past the point, never
 * because the machine was slow. Both readings move together and never go backwards.
 */
public final class ManualClock implements TimeSource {

    private final long startMillis;
    private final AtomicLong elapsedNanos = new AtomicLong();

    private ManualClock(long startMillis) {
        this.startMillis = startMillis;
    }

    /** A clock that reads {@code epochMillis} until advanced. */
    public static ManualClock startingAt(long epochMillis) {
        if (epochMillis < 0) {
            throw new IllegalArgumentException("ManualClock.startingAt(epochMillis): must be >= 0, was " + epochMillis);
        }
        return new ManualClock(epochMillis);
    }

    /** Moves processing time forward by {@code duration} (zero allowed, never backwards). */
    public ManualClock advance(Duration duration) {
        Objects.requireNonNull(duration, "ManualClock.advance(duration): duration is null");
        if (duration.isNegative()) {
            throw new IllegalArgumentException("ManualClock.advance(duration): processing time never goes back, was " + duration);
        }
        elapsedNanos.addAndGet(duration.toNanos());
        return this;
    }

    @Override
    public long nanoTime() {
        return elapsedNanos.get();
    }

    @Override
    public long currentTimeMillis() {
        return startMillis + elapsedNanos.get() / 1_000_000L;
    }

    @Override
    public String toString() {
        return "manual clock at " + currentTimeMillis() + " ms";
    }
}
