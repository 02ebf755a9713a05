package air.runtime.impl.ops;

import air.runtime.api.EventTime;
import air.runtime.api.TimeSource;
import air.runtime.operator.Rescale;
import air.runtime.plan.OperatorInfo;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.function.ToLongFunction;

/**
 * Assigns event time and publishes the watermark {@code max seen - allowedDisorder - 1}, at most
 * once per batch and once per interval, never per record — except just before a record that is
 * late by that rule, so that which records are late never depends on when the last periodic
 * publication happened. After {@code idleTimeoutNanos} without
 * records it publishes an idle watermark instead: event time estimated to advance with the wall
 * clock from the newest timestamp it or a sibling instance in this JVM has seen
 * ({@link EventClock}); with no timestamp seen yet it publishes nothing. Idleness and that
 * estimate follow the job's {@link TimeSource} (a test's manual clock); the publication interval
 * follows the machine's clock. Behind a source that reads several splits in turn,
 * {@link SplitTimestampOp} takes its place and keeps all this per split.
 */
public final class TimestampOp<T> extends ForwardingOperator<T, T> implements Snapshotting {

    private final ToLongFunction<? super T> timestampFn;
    private final BadRecordHandler badRecords;
    private final long allowedDisorder;
    private final long intervalNanos;
    private long lastPublishedNanos = Long.MIN_VALUE;
    private long maxSeen = Long.MIN_VALUE;
    private long lastWatermark = Long.MIN_VALUE;
    private long received;
    private final long idleTimeoutNanos;
    private final EventClock clock;
    private final TimeSource time;
    private long receivedAtBatch;
    private long quietSinceNanos = Long.MIN_VALUE;
    @SuppressWarnings("unused")
    private long q00, q01, q02, q03, q04, q05, q06, q07; // after the hot longs: keeps the next object off their cache line

    public TimestampOp(OperatorInfo info, ToLongFunction<? super T> timestampFn, BadRecordHandler badRecords, long allowedDisorder,
                       long intervalNanos, long idleTimeoutNanos, EventClock clock, TimeSource time, Inlet<? super T> next) {
        super(info, next);
        this.badRecords = badRecords;
        this.time = time;
        this.idleTimeoutNanos = idleTimeoutNanos;
        this.clock = clock;
        this.timestampFn = timestampFn;
        this.allowedDisorder = allowedDisorder;
        this.intervalNanos = intervalNanos;
    }

    @Override
    public void accept(long ignored, T item) {
        received++;
        long ts = eventTime(timestampFn, badRecords, ignored, item);
        if (ts == NO_TIMESTAMP) {
            return;
        }
        if (ts > maxSeen) {
            maxSeen = ts;
        } else if (ts < maxSeen - allowedDisorder && maxSeen - allowedDisorder > Long.MIN_VALUE + 1) {
            onLate(ts);
        }
        next.accept(ts, item);
    }

    /**
     * The event time {@code timestampFn} gives {@code item}, or {@link #NO_TIMESTAMP} once the item
     * went to the stage's bad-record policy (the function threw, or gave the reserved value or a
     * time outside {@link EventTime#MIN} .. {@link EventTime#MAX}). Shared
     * by every timestamp assigner (per instance, per split).
     */
    static <T> long eventTime(ToLongFunction<? super T> timestampFn, BadRecordHandler badRecords, long timestamp, T item) {
        long ts;
        try {
            ts = timestampFn.applyAsLong(item);
        } catch (RuntimeException e) {
            badRecords.failed(timestamp, item, "threw on", e);
            return NO_TIMESTAMP;
        }
        if (ts == NO_TIMESTAMP) {
            badRecords.failed(timestamp, item, "returned Long.MIN_VALUE for",
                    new IllegalArgumentException("Long.MIN_VALUE is reserved for 'no timestamp'"));
        } else if (!EventTime.inRange(ts)) {
            badRecords.failed(timestamp, item, "returned the event time " + ts + " for", new IllegalArgumentException("event time " + ts
                    + " ms lies outside [EventTime.MIN, EventTime.MAX] = [" + EventTime.MIN + ", " + EventTime.MAX + "] ms, where window"
                    + " arithmetic is exact"));
            return NO_TIMESTAMP;
        }
        return ts;
    }

    /**
     * A record more than the allowed disorder behind the newest timestamp this instance saw
     * before it: late by the rule, whatever was published yet. The watermark goes up to that
     * bound first (it is one, whatever the interval says), so the stages behind judge the record
     * late too — the same records on every run of the same input and settings, not those that
     * happened to follow a periodic publication.
     */
    private void onLate(long ts) {
        long bound = maxSeen - allowedDisorder - 1;
        if (bound > lastWatermark) {
            lastWatermark = bound;
            next.onWatermark(bound);
        }
    }

    @Override
    public void emit(T item) {
        accept(NO_TIMESTAMP, item);
    }

    @Override
    public void onWatermark(long watermark) {
        // event time starts here: upstream progress has no meaning below this operator
    }

    @Override
    public void onEndOfBatch() {
        if (received != receivedAtBatch) {
            receivedAtBatch = received;
            if (idleTimeoutNanos > 0) {
                // quiet from the last batch with records on: the idle timeout counts from there
                long now = time.nanoTime();
                quietSinceNanos = now;
                if (maxSeen > clock.newest()) {
                    clock.observe(maxSeen, now);
                }
            }
            if (maxSeen != Long.MIN_VALUE) {
                publish(maxSeen - allowedDisorder - 1);
            }
        } else if (idleTimeoutNanos > 0) {
            onQuietBatch();
        }
        next.onEndOfBatch();
    }

    /** A batch without records: once quiet for the idle timeout since the last records (or the first look), publishes the idle watermark. */
    private void onQuietBatch() {
        long now = time.nanoTime();
        if (quietSinceNanos == Long.MIN_VALUE) {
            quietSinceNanos = now;
            return;
        }
        if (now - quietSinceNanos < idleTimeoutNanos) {
            return;
        }
        long estimate = clock.estimateAt(now); // includes this instance's own newest timestamp
        if (estimate != Long.MIN_VALUE) {
            publish(estimate - allowedDisorder - 1);
        }
    }

    private void publish(long wm) {
        if (wm > lastWatermark && due()) {
            lastWatermark = wm;
            next.onWatermark(wm);
        }
    }

    /** Periodic publication: at most once per interval (every batch when the interval is 0). */
    private boolean due() {
        if (intervalNanos == 0) {
            return true;
        }
        long now = System.nanoTime();
        if (lastPublishedNanos != Long.MIN_VALUE && now - lastPublishedNanos < intervalNanos) {
            return false;
        }
        lastPublishedNanos = now;
        return true;
    }

    @Override
    public long received() {
        return received;
    }

    @Override
    public void snapshotTo(WireOut out, long checkpointId) {
        out.putLong(maxSeen).putLong(lastWatermark).putLong(received);
    }

    /**
     * Onto another layout: the lowest progress of every earlier instance (its source may now read
     * what any of them had left, which must not count as late) and the records the earlier
     * instances it takes had received.
     */
    @Override
    public void restoreRescaled(Rescale rescale) {
        long lowestSeen = Long.MAX_VALUE;
        long lowestWatermark = Long.MAX_VALUE;
        long count = 0;
        boolean any = false;
        for (int i = 0; i < rescale.instancesBefore(); i++) {
            WireIn in = rescale.newest(i);
            if (in != null) {
                any = true;
                lowestSeen = Math.min(lowestSeen, in.getLong());
                lowestWatermark = Math.min(lowestWatermark, in.getLong());
                long r = in.getLong();
                count += rescale.takes(i) ? r : 0;
            }
        }
        if (any) {
            maxSeen = lowestSeen;
            lastWatermark = lowestWatermark;
            received = count;
            receivedAtBatch = count;
        }
    }

    @Override
    public void restoreFrom(WireIn in) {
        maxSeen = in.getLong();
        lastWatermark = in.getLong();
        received = in.getLong();
        receivedAtBatch = received;
    }
}
