package air.runtime.api;

/**
 * Processing time as a job sees it: when a source counts as idle, and when processing-time
 * timers fire. The engine reads it through this interface so that a test can drive it by hand
 * (the test kit's manual clock) while the engine's own pacing — watermark publication,
 * checkpoint intervals, heartbeats — stays on the machine's clock.
 *
 * <p>Both readings must be safe to call from any thread and never go backwards.
 */
public interface TimeSource {

    /** The machine's clocks: {@link System#nanoTime()} and {@link System#currentTimeMillis()}. */
    TimeSource SYSTEM = new TimeSource() {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public long currentTimeMillis() {
            return System.currentTimeMillis();
        }

        @Override
        public String toString() {
            return "system clock";
        }
    };

    /** A monotone reading in nanoseconds, for durations (its origin means nothing). */
    long nanoTime();

    /** Processing time in milliseconds since the epoch, for processing-time timers. */
    long currentTimeMillis();
}
