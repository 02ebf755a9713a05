package air.test;

import air.runtime.api.SinkFactory;
import air.runtime.api.SinkWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A sink that remembers, for every record it received, how far event time had come when it
 * was written: the progress its writer was told of right after the record. A window's result
 * is written just before the progress that completes the window passes the sink, so a tumbling
 * window {@code [0, 10 s)} shows {@code firedAt == 10_000} when it fired the moment event time
 * reached 10 s — the fact {@link ProgressAssert} checks. A record no progress followed yet is
 * in {@link #items} and {@link #readAll} but not yet in {@link #firings}; one written at the end of
 * input fires at {@code Long.MAX_VALUE}.
 *
 * <p>Not a checkpointed sink: it serves one JVM's test driver (for fault tolerance, see the test
 * kit's simulated peers).
 */
public final class TestDriverOutput<T> implements SinkFactory<T> {

    /** A record and the event time that had been reached when it was written (see the class doc). */
    public record Fired<T>(T item, long firedAt, int instance) { }

    /** Progress of a writer that has seen none. */
    static final long NONE = Long.MIN_VALUE;

    private final String name;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition moved = lock.newCondition();
    private final List<Fired<T>> fired = new ArrayList<>();
    /** Every record written, in the order the writers got them. */
    private final List<T> written = new ArrayList<>();
    private final List<Writer> writers = new ArrayList<>();
    private int parallelism = -1;
    private int read;

    TestDriverOutput(String name) {
        this.name = name;
    }

    public String name() {
        return name;
    }

    @Override
    public SinkWriter<T> open(int instance, int parallelism) {
        lock.lock();
        try {
            this.parallelism = parallelism;
            Writer w = new Writer(instance);
            writers.removeIf(old -> old.instance == instance);
            writers.add(w);
            return w;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String describe() {
        return "test-output(" + name + ")";
    }

    /** Every record received so far that progress has passed, in the order each writer got them. */
    public List<Fired<T>> firings() {
        lock.lock();
        try {
            return List.copyOf(fired);
        } finally {
            lock.unlock();
        }
    }

    /** The records written that earlier calls did not return, in the order they were written (as a test reads a topic). */
    public List<T> readAll() {
        lock.lock();
        try {
            List<T> out = new ArrayList<>(written.subList(read, written.size()));
            read = written.size();
            return out;
        } finally {
            lock.unlock();
        }
    }

    /** Every record written so far, read before or not, whether progress has passed it yet or not. */
    public List<T> items() {
        lock.lock();
        try {
            return new ArrayList<>(written);
        } finally {
            lock.unlock();
        }
    }

    /** How far event time has reached every writer of this sink ({@code Long.MIN_VALUE}: not all of them yet). */
    public long progress() {
        lock.lock();
        try {
            return progressLocked();
        } finally {
            lock.unlock();
        }
    }

    private long progressLocked() {
        if (parallelism < 0 || writers.size() < parallelism) {
            return NONE;
        }
        long min = Long.MAX_VALUE;
        for (Writer w : writers) {
            min = Math.min(min, w.progress);
        }
        return min;
    }

    /**
     * Waits until at least {@code count} records have been written (followed by progress or not):
     * for outputs that do not come from a step of the driver's own, such as a processing-time
     * timer's. Fails naming this output and how many came.
     */
    public List<T> awaitWritten(int count, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            while (written.size() < count) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError(describe() + ": expected " + count + " records within " + timeout + ", " + written.size() + " came");
                }
                moved.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
            }
            return new ArrayList<>(written);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for " + describe(), e);
        } finally {
            lock.unlock();
        }
    }

    private final class Writer implements SinkWriter<T> {
        private final int instance;
        private final List<T> pending = new ArrayList<>();
        private long progress = NONE;

        Writer(int instance) {
            this.instance = instance;
        }

        @Override
        public void write(T item) {
            lock.lock();
            try {
                pending.add(item);
                written.add(item);
                moved.signalAll();
            } finally {
                lock.unlock();
            }
        }

        @Override
        public void onProgress(long completeBelow) {
            lock.lock();
            try {
                passed(completeBelow);
            } finally {
                lock.unlock();
            }
        }

        private void passed(long completeBelow) {
            for (T item : pending) {
                fired.add(new Fired<>(item, completeBelow, instance));
            }
            pending.clear();
            progress = Math.max(progress, completeBelow);
            moved.signalAll();
        }

        @Override
        public void close() {
            lock.lock();
            try {
                passed(Long.MAX_VALUE);
            } finally {
                lock.unlock();
            }
        }
    }
}
