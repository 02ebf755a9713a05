package air.runtime.impl.ops;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The newest event time any instance of one {@code withTimestamps} has seen in this JVM, and when:
 * where an idle instance with nothing of its own starts its wall-clock estimate. Updated at most
 * once per batch per instance, and only when the time moves forward.
 */
public final class EventClock {

    private final AtomicLong newest = new AtomicLong(Long.MIN_VALUE);
    private volatile long seenAtNanos;

    /** Records that {@code timestamp} was seen at {@code nowNanos}. */
    public void observe(long timestamp, long nowNanos) {
        long current = newest.get();
        while (timestamp > current) {
            if (newest.compareAndSet(current, timestamp)) {
                seenAtNanos = nowNanos;
                return;
            }
            current = newest.get();
        }
    }

    /** The newest timestamp seen, or {@code Long.MIN_VALUE}. */
    public long newest() {
        return newest.get();
    }

    /**
     * Event time now if it advances with the wall clock from the newest timestamp seen:
     * {@code Long.MIN_VALUE} when nothing was seen.
     */
    public long estimateAt(long nowNanos) {
        long t = newest.get();
        return t == Long.MIN_VALUE ? t : t + Math.max(0, nowNanos - seenAtNanos) / 1_000_000L;
    }
}
