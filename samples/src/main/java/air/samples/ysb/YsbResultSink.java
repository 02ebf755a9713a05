package air.samples.ysb;

import air.runtime.api.CheckpointedSinkWriter;
import air.runtime.api.SinkFactory;
import air.runtime.api.SinkWriter;
import air.runtime.api.WindowResult;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;

/**
 * Collects YSB rows in columns with the wall time each reached the sink (for latency and
 * {@code t_last}). Writers buffer locally and merge once at close. Under checkpoints a writer's
 * rows are part of every checkpoint, so a restarted peer resumes with exactly the rows emitted
 * before it.
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
                windowStart = Arrays.copyOf(windowStart, cap);
                campaign = Arrays.copyOf(campaign, cap);
                count = Arrays.copyOf(count, cap);
                emitNanos = Arrays.copyOf(emitNanos, cap);
            }
            windowStart[size] = ws;
            campaign[size] = c;
            count[size] = n;
            emitNanos[size++] = t;
        }
    }

    private final List<Rows> closed = new ArrayList<>();
    private final Runnable onFirstWrite;
    private final AtomicBoolean written = new AtomicBoolean();

    private final IntConsumer onFirstWriteAfterRestore;

    /**
     * @param onFirstWrite            runs once, when the first row of this process reaches the sink
     * @param onFirstWriteAfterRestore runs with the writer's instance when a writer restored from a
     *                                checkpoint or a replica writes its first new row
     */
    public YsbResultSink(Runnable onFirstWrite, IntConsumer onFirstWriteAfterRestore) {
        this.onFirstWrite = onFirstWrite;
        this.onFirstWriteAfterRestore = onFirstWriteAfterRestore;
    }

    public YsbResultSink(Runnable onFirstWrite) {
        this(onFirstWrite, i -> { });
    }

    public YsbResultSink() {
        this(() -> { });
    }

    @Override
    public SinkWriter<WindowResult<Long, Long>> open(int instance, int parallelism) {
        Rows rows = new Rows();
        return new CheckpointedSinkWriter<>() {
            private boolean restored;

            @Override
            public void write(WindowResult<Long, Long> r) {
                rows.add(r.start(), r.key(), r.value(), System.nanoTime());
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
                ByteBuffer b = ByteBuffer.allocate(4 + rows.size * 32).putInt(rows.size);
                for (int i = 0; i < rows.size; i++) {
                    b.putLong(rows.windowStart[i]).putLong(rows.campaign[i]).putLong(rows.count[i]).putLong(rows.emitNanos[i]);
                }
                return b.array();
            }

            @Override
            public void restore(byte[] state) {
                Rows restored = YsbRows.decode(state, -1);
                this.restored = true;
                rows.size = 0;
                for (int i = 0; i < restored.size; i++) {
                    rows.add(restored.windowStart[i], restored.campaign[i], restored.count[i], restored.emitNanos[i]);
                }
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
