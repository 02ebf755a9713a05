package air.runtime.source;

import air.runtime.api.Emitter;
import air.runtime.api.SourceFactory;
import air.runtime.api.SourceReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Live input from the application: it {@link #offer}s records (blocking while {@code capacity}
 * records wait, so a slow job holds the producer back) and {@link #close}s the stream when it has
 * no more. The job's source instances drain whatever is there at each read, never waiting for a
 * full batch, so a record waits at most one source poll (about a millisecond when the source is
 * idle) before it enters the pipeline. Not replayable: a job with checkpoints or replicas cannot
 * rewind it. One queue serves every source instance; records of one instance keep their order.
 */
public final class PushSource<T> implements SourceFactory<T> {

    private final BlockingQueue<T> queue;
    private final int capacity;
    private volatile boolean closed;
    /** Offers under way: a reader ends only once the source is closed and none is left to land. */
    private final AtomicInteger offering = new AtomicInteger();

    public PushSource(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("Sources.push(capacity): capacity must be >= 1, was " + capacity);
        }
        this.capacity = capacity;
        this.queue = new ArrayBlockingQueue<>(capacity);
    }

    /** Hands {@code record} to the job, waiting while the queue is full. */
    public void offer(T record) throws InterruptedException {
        Objects.requireNonNull(record, "PushSource.offer(record): record is null");
        offering.incrementAndGet();
        try {
            checkOpen();
            queue.put(record);
        } finally {
            offering.decrementAndGet();
        }
    }

    /** {@link #offer(Object)} waiting at most {@code timeout}; false when the queue stayed full. */
    public boolean offer(T record, Duration timeout) throws InterruptedException {
        Objects.requireNonNull(record, "PushSource.offer(record, timeout): record is null");
        offering.incrementAndGet();
        try {
            checkOpen();
            return queue.offer(record, timeout.toNanos(), TimeUnit.NANOSECONDS);
        } finally {
            offering.decrementAndGet();
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("PushSource.offer: the source was closed; nothing more can be offered");
        }
    }

    /** No more records: the source ends once the job has read what was offered. */
    public void close() {
        closed = true;
    }

    /** Records offered and not yet read. */
    public int pending() {
        return queue.size();
    }

    @Override
    public SourceReader<T> createReader(int instance, int parallelism) {
        return new SourceReader<>() {
            private long read;
            /** Reused per read: one lock acquisition drains a whole batch, not one per record. */
            private final List<T> batch = new ArrayList<>();

            @Override
            public int read(int max, Emitter<? super T> out) {
                // read before draining: what was offered before close, or while it happened, is read first
                boolean wasClosed = closed && offering.get() == 0;
                int n = queue.drainTo(batch, max);
                try {
                    for (int i = 0; i < n; i++) {
                        out.emit(batch.get(i));
                        read++;
                    }
                } finally {
                    batch.clear();
                }
                return n == 0 && wasClosed ? EXHAUSTED : n;
            }

            @Override
            public long position() {
                return read;
            }

            @Override
            public void seek(long position) {
                if (position != read) {
                    throw new IllegalStateException("a push source cannot seek from " + read + " to " + position
                            + ": what the application offered is not kept; use a replayable source with checkpoints");
                }
            }
        };
    }

    @Override
    public String describe() {
        return "push(" + capacity + ")";
    }

    @Override
    public String notReplayableBecause() {
        return "Sources.push(capacity) hands over what the application offers and keeps none of it; read from a replayable source "
                + "(Sources.fromList or generate, FileSources, KafkaSources) or run without checkpoints and replicas";
    }
}
