package air.samples.ysb;

import air.runtime.api.CheckpointedSinkWriter;
import air.runtime.api.SinkFactory;
import air.runtime.api.SinkWriter;
import air.runtime.api.WindowResult;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;

/**
 * Collects YSB rows in columns with the wall time each reached the sink (for latency and
 * {@code t_last}); a {@code RowOf} turns one result of the query into a row. Writers buffer
 * locally and merge once at close. Under checkpoints a writer's rows are part of every
 * checkpoint, so a restarted peer resumes with exactly the rows emitted before it.
 */
public final class YsbResultSink<T> implements SinkFactory<T> {

    /** Adds one result of the query to {@code rows} as a row that reached the sink at {@code nanos}. */
    @FunctionalInterface
    public interface RowOf<T> {
        void add(T result, Rows rows, long nanos);

        /** YSB and the users query: a count per (window, key). */
        RowOf<WindowResult<Long, Long>> COUNT = (r, rows, t) -> rows.add(r.start(), r.key(), r.value(), 0, t);
    }

    /** The rows of one writer, in columns. */
    public static final class Rows {
        long[] windowStart = new long[256];
        long[] campaign = new long[256];
        long[] count = new long[256];
        long[] second = new long[256];
        long[] emitNanos = new long[256];
        int size;

        void add(long ws, long c, long n, long t) {
            add(ws, c, n, 0, t);
        }

        /** A row: window start, key, its one or two counts and when it reached the sink. */
        public void add(long ws, long c, long n, long m, long t) {
            if (size == windowStart.length) {
                int cap = size * 2;
                windowStart = Arrays.copyOf(windowStart, cap);
                campaign = Arrays.copyOf(campaign, cap);
                count = Arrays.copyOf(count, cap);
                second = Arrays.copyOf(second, cap);
                emitNanos = Arrays.copyOf(emitNanos, cap);
            }
            windowStart[size] = ws;
            campaign[size] = c;
            count[size] = n;
            second[size] = m;
            emitNanos[size++] = t;
        }
    }

    private final RowOf<? super T> rowOf;
    private final YsbRows.Shape shape;

    private final List<Rows> closed = new ArrayList<>();
    private final Runnable onFirstWrite;
    private final AtomicBoolean written = new AtomicBoolean();

    private final IntConsumer onFirstWriteAfterRestore;

    /**
     * @param onFirstWrite            runs once, when the first row of this process reaches the sink
     * @param onFirstWriteAfterRestore runs with the writer's instance when a writer restored from a
     *                                checkpoint or a replica writes its first new row
     */
    public YsbResultSink(YsbRows.Shape shape, RowOf<? super T> rowOf, Runnable onFirstWrite, IntConsumer onFirstWriteAfterRestore) {
        this.shape = shape;
        this.rowOf = rowOf;
        this.onFirstWrite = onFirstWrite;
        this.onFirstWriteAfterRestore = onFirstWriteAfterRestore;
    }

    /** YSB rows (a count per window and campaign). */
    public static YsbResultSink<WindowResult<Long, Long>> counts(Runnable onFirstWrite, IntConsumer onFirstWriteAfterRestore) {
        return new YsbResultSink<>(YsbRows.Shape.COUNTS, RowOf.COUNT, onFirstWrite, onFirstWriteAfterRestore);
    }

    public static YsbResultSink<WindowResult<Long, Long>> counts() {
        return counts(() -> { }, i -> { });
    }

    @Override
    public SinkWriter<T> open(int instance, int parallelism) {
        Rows rows = new Rows();
        return new CheckpointedSinkWriter<>() {
            private boolean restored;
            /** The rows the last snapshot (whole or of changes) covered: the next snapshot of changes starts here. */
            private int snapshotted;

            @Override
            public void write(T r) {
                rowOf.add(r, rows, System.nanoTime());
                if (!written.get() && !written.getAndSet(true)) {
                    onFirstWrite.run();
                }
                if (restored) {
                    restored = false;
                    onFirstWriteAfterRestore.accept(instance);
                }
            }

            /** The rows so far, in the row-table form of {@link YsbRows#decode}: what a restarted peer resumes with. */
            @Override
            public byte[] snapshot(long checkpointId) {
                return rowsFrom(0);
            }

            /** The rows appended since the last snapshot, in the same form: rows are only ever appended. */
            @Override
            public byte[] snapshotChanges(long checkpointId) {
                return rowsFrom(snapshotted);
            }

            private byte[] rowsFrom(int first) {
                byte[] bytes = YsbRows.encode(first, rows.size - first, rows.windowStart, rows.campaign, rows.count, rows.second,
                        rows.emitNanos);
                snapshotted = rows.size;
                return bytes;
            }

            @Override
            public void restore(byte[] state) {
                rows.size = 0;
                restoreChanges(state);
            }

            @Override
            public void restoreChanges(byte[] changes) {
                Rows restored = YsbRows.decode(changes, -1);
                this.restored = true;
                for (int i = 0; i < restored.size; i++) {
                    rows.add(restored.windowStart[i], restored.campaign[i], restored.count[i], restored.second[i], restored.emitNanos[i]);
                }
                snapshotted = rows.size;
            }

            /** Onto another layout: the rows of every earlier instance this one takes, one after another (rows are only appended). */
            @Override
            public void restoreRescaled(long checkpointId, List<List<byte[]>> earlier) {
                rows.size = 0;
                for (List<byte[]> chain : earlier) {
                    for (byte[] part : chain) {
                        restoreChanges(part);
                    }
                }
                this.restored = true;
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
            return YsbRows.merge(closed, shape);
        }
    }

    @Override
    public String describe() {
        return "ysb-rows";
    }
}
