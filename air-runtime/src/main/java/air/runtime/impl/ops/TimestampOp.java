package air.runtime.impl.ops;

import air.runtime.plan.OperatorInfo;
import java.util.function.ToLongFunction;

/**
 * Assigns event time and publishes the watermark {@code max seen - allowedDisorder - 1}, at most
 * once per batch and once per interval, never per record.
 */
public final class TimestampOp<T> extends ForwardingOperator<T, T> {

    private final ToLongFunction<? super T> timestampFn;
    private final long allowedDisorder;
    private final long intervalNanos;
    private long lastPublishedNanos = Long.MIN_VALUE;
    private long maxSeen = Long.MIN_VALUE;
    private long lastWatermark = Long.MIN_VALUE;
    private long received;
    @SuppressWarnings("unused")
    private long q00, q01, q02, q03, q04, q05, q06, q07; // after the hot longs: keeps the next object off their cache line

    public TimestampOp(OperatorInfo info, ToLongFunction<? super T> timestampFn, long allowedDisorder, long intervalNanos,
                       Inlet<? super T> next) {
        super(info, next);
        this.timestampFn = timestampFn;
        this.allowedDisorder = allowedDisorder;
        this.intervalNanos = intervalNanos;
    }

    @Override
    public void accept(long ignored, T item) {
        received++;
        long ts;
        try {
            ts = timestampFn.applyAsLong(item);
        } catch (RuntimeException e) {
            throw new OperatorFailure(info, "threw on " + OperatorFailure.preview(item), e);
        }
        if (ts == NO_TIMESTAMP) {
            throw new OperatorFailure(info, "returned Long.MIN_VALUE for " + OperatorFailure.preview(item),
                    new IllegalArgumentException("Long.MIN_VALUE is reserved for 'no timestamp'"));
        }
        if (ts > maxSeen) {
            maxSeen = ts;
        }
        next.accept(ts, item);
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
        if (maxSeen != Long.MIN_VALUE && due()) {
            long wm = maxSeen - allowedDisorder - 1;
            if (wm > lastWatermark) {
                lastWatermark = wm;
                next.onWatermark(wm);
            }
        }
        next.onEndOfBatch();
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
}
