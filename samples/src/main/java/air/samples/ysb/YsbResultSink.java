package air.samples.ysb;

import air.runtime.api.SinkFactory;
import air.runtime.api.SinkWriter;
import air.runtime.api.WindowResult;
import java.util.ArrayList;
import java.util.List;

/**
 * Collects YSB rows in columns with the wall time each reached the sink (for latency and
 * {@code t_last}). Writers buffer locally and merge once at close.
 */
public final class YsbResultSink implements SinkFactory<WindowResult<Long, Long>> {

    /** The rows of one writer, in columns. */
    static final class Rows {
        long[] windowStart = new long[256];
        long[] campaign = new long[256];
        long[] count = new long[256];
        long[] emitNanos = new long[256];
        int size;

        void add(long ws, long c, long n, long t) {
            if (size == windowStart.length) {
                int cap = size * 2;
                windowStart = java.util.Arrays.copyOf(windowStart, cap);
                campaign = java.util.Arrays.copyOf(campaign, cap);
                count = java.util.Arrays.copyOf(count, cap);
                emitNanos = java.util.Arrays.copyOf(emitNanos, cap);
            }
            windowStart[size] = ws;
            campaign[size] = c;
            count[size] = n;
            emitNanos[size++] = t;
        }
    }

    private final List<Rows> closed = new ArrayList<>();

    @Override
    public SinkWriter<WindowResult<Long, Long>> open(int instance, int parallelism) {
        Rows rows = new Rows();
        return new SinkWriter<>() {
            @Override
            public void write(WindowResult<Long, Long> r) {
                rows.add(r.start(), r.key(), r.value(), System.nanoTime());
            }

            @Override
            public void close() {
                synchronized (closed) {
                    closed.add(rows);
                }
            }
        };
    }

    /** All rows of all writers; call after the job finished. */
    public YsbRows rows() {
        synchronized (closed) {
            return YsbRows.merge(closed);
        }
    }

    @Override
    public String describe() {
        return "ysb-rows";
    }
}
