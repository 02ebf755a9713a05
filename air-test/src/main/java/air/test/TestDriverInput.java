package air.test;

import air.dsl.Pipeline;
import air.dsl.Stage;
import air.runtime.api.Emitter;
import air.runtime.api.SourceFactory;
import air.runtime.api.SourceReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * An input a {@link TestDriver} feeds: records with their event times, {@link #send sent} by the
 * test, and the event time the test says the input has reached. Its stage carries timestamps
 * already ({@code withTimestamps} must not be called again). Replayable: every source instance
 * keeps a cursor over one log, its position a plain index; instance {@code i} of {@code P}
 * reads the records sent as the {@code i}-th, {@code (i+P)}-th, ... and every event-time step.
 *
 * <p>How the driver moves event time: a step to {@code t} appends a marker with event time
 * {@code t + allowedDisorder} for every instance, so that each publishes progress to exactly
 * {@code t} (records below {@code t} sent afterwards are late); the marker is dropped right after
 * timestamps are assigned and never reaches the job's own stages.
 */
public final class TestDriverInput<T> {

    /** One entry of the log: the {@code index}-th record, or a step of event time ({@code value == null}). */
    record Entry<T>(long time, T value, long index) {

        boolean isRecord() {
            return value != null;
        }
    }

    private final String name;
    private final long allowedDisorderMs;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition consumed = lock.newCondition();
    private final List<Entry<T>> log = new ArrayList<>();
    private final List<Reader> readers = new ArrayList<>();
    private final Source source = new Source();
    private long records;
    private long eventTime = Long.MIN_VALUE;
    private boolean closed;
    private boolean attached;

    TestDriverInput(String name, long allowedDisorderMs) {
        this.name = name;
        this.allowedDisorderMs = allowedDisorderMs;
    }

    /** The input as the first stage of {@code pipeline}, with its event times declared. */
    public Stage<T> readFrom(Pipeline pipeline) {
        Objects.requireNonNull(pipeline, "TestDriverInput.readFrom(pipeline): pipeline is null");
        lock.lock();
        try {
            if (attached) {
                throw new IllegalStateException("test input '" + name + "' is already read by a pipeline; make one input per readFrom");
            }
            attached = true;
        } finally {
            lock.unlock();
        }
        return pipeline.readFrom(source).named("test input " + name)
                .withTimestamps(Entry::time, allowedDisorderMs)
                .filter(Entry::isRecord).named("test input " + name + ": event-time steps dropped")
                .map(Entry::value).named("test input " + name + ": records");
    }

    /** Sends {@code value} with event time {@code timestampMs}; behind this input's event time by more than the disorder, it is late. */
    public TestDriverInput<T> send(long timestampMs, T value) {
        Objects.requireNonNull(value, "TestDriverInput.send(timestampMs, value): value is null");
        if (timestampMs == Long.MIN_VALUE) {
            throw new IllegalArgumentException("TestDriverInput.send: Long.MIN_VALUE is reserved for 'no timestamp'");
        }
        lock.lock();
        try {
            checkOpen("send");
            log.add(new Entry<>(timestampMs, value, records));
            records++;
        } finally {
            lock.unlock();
        }
        return this;
    }

    /** Records sent so far. */
    public long sent() {
        lock.lock();
        try {
            return records;
        } finally {
            lock.unlock();
        }
    }

    public String name() {
        return name;
    }

    /** What a pipeline reads this input through (to tell whether the driver's pipeline does). */
    SourceFactory<?> source() {
        return source;
    }

    void advanceTo(long t) {
        lock.lock();
        try {
            checkOpen("advanceEventTime");
            if (t < eventTime) {
                throw new IllegalArgumentException("event time of test input '" + name + "' never goes back: at " + eventTime + ", asked for " + t);
            }
            eventTime = t;
            log.add(new Entry<>(Math.addExact(t, allowedDisorderMs), null, -1));
        } finally {
            lock.unlock();
        }
    }

    void close() {
        lock.lock();
        try {
            closed = true;
        } finally {
            lock.unlock();
        }
    }

    private void checkOpen(String call) {
        if (closed) {
            throw new IllegalStateException("TestDriverInput." + call + ": test input '" + name + "' is closed (the driver ended its input)");
        }
        if (!attached) {
            throw new IllegalStateException("TestDriverInput." + call + ": test input '" + name
                    + "' is read by no pipeline: call readFrom(pipeline) first");
        }
    }

    /**
     * Waits until every source instance has handed on everything in the log and come back for
     * more (so the batch it last read has passed through its fused stages); false on timeout.
     */
    boolean awaitConsumed(long timeoutNanos) throws InterruptedException {
        return awaitUnderLock(this::allConsumed, timeoutNanos);
    }

    /** Waits on the readers' signal until {@code done} holds (read with the lock held); false on timeout. */
    private boolean awaitUnderLock(BooleanSupplier done, long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        lock.lock();
        try {
            while (!done.getAsBoolean()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                consumed.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** How often each source instance has polled so far, by instance (empty before the job opened them). */
    long[] polls() {
        lock.lock();
        try {
            long[] out = new long[readers.isEmpty() ? 0 : readers.get(0).parallelism];
            for (Reader r : readers) {
                out[r.instance] = r.polls;
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    /** Waits until every source instance has polled {@code more} times since {@code before}; false on timeout. */
    boolean awaitPolls(long[] before, int more, long timeoutNanos) throws InterruptedException {
        return awaitUnderLock(() -> polledSince(before, more), timeoutNanos);
    }

    private boolean polledSince(long[] before, int more) {
        for (Reader r : readers) {
            long was = r.instance < before.length ? before[r.instance] : 0;
            if (r.polls < was + more) {
                return false;
            }
        }
        return !readers.isEmpty();
    }

    private boolean allConsumed() {
        if (readers.isEmpty()) {
            return false;
        }
        int parallelism = readers.get(0).parallelism;
        if (readers.size() < parallelism) {
            return false;
        }
        for (Reader r : readers) {
            if (r.acknowledged < log.size()) {
                return false;
            }
        }
        return true;
    }

    /** What the job reads: one reader per instance over the shared log. */
    private final class Source implements SourceFactory<Entry<T>> {

        @Override
        public SourceReader<Entry<T>> createReader(int instance, int parallelism) {
            Reader r = new Reader(instance, parallelism);
            lock.lock();
            try {
                readers.removeIf(old -> old.instance == instance); // a restart from a checkpoint opens them again
                readers.add(r);
            } finally {
                lock.unlock();
            }
            return r;
        }

        @Override
        public String describe() {
            return "test-input(" + name + ")";
        }
    }

    private final class Reader implements SourceReader<Entry<T>> {
        private final int instance;
        private final int parallelism;
        /** Index of the next log entry to look at. */
        private int cursor;
        /** Log entries this reader had finished with when it last came back for more. */
        private int acknowledged;
        /** Calls of {@link #read}: each one after the first means the previous batch has passed the fused chain. */
        private long polls;
        private final List<Entry<T>> batch = new ArrayList<>();

        Reader(int instance, int parallelism) {
            this.instance = instance;
            this.parallelism = parallelism;
        }

        @Override
        public int read(int max, Emitter<? super Entry<T>> out) {
            boolean ended;
            lock.lock();
            try {
                polls++;
                if (acknowledged != cursor) {
                    acknowledged = cursor; // the previous batch went through the chain before this call
                }
                consumed.signalAll();
                ended = closed;
                while (cursor < log.size() && batch.size() < max) {
                    Entry<T> e = log.get(cursor++);
                    if (!e.isRecord()) {
                        batch.add(e);
                    } else if (e.index() % parallelism == instance) {
                        batch.add(e);
                    }
                }
                ended = ended && cursor == log.size();
            } finally {
                lock.unlock();
            }
            int n = batch.size();
            try {
                for (Entry<T> e : batch) {
                    out.emit(e);
                }
            } finally {
                batch.clear();
            }
            if (n == 0 && ended) {
                lock.lock();
                try {
                    acknowledged = cursor;
                    consumed.signalAll();
                } finally {
                    lock.unlock();
                }
                return EXHAUSTED;
            }
            return n;
        }

        @Override
        public long position() {
            return cursor;
        }

        @Override
        public void seek(long position) {
            lock.lock();
            try {
                if (position < 0 || position > log.size()) {
                    throw new IllegalStateException("test input '" + name + "' cannot seek to " + position + ": it holds " + log.size() + " entries");
                }
                cursor = (int) position;
                acknowledged = Math.min(acknowledged, cursor);
            } finally {
                lock.unlock();
            }
        }
    }
}
