package air.connectors.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import air.runtime.Job;
import air.runtime.JobConfig;
import air.runtime.api.CheckpointedSinkWriter;
import air.runtime.api.CheckpointedSourceReader;
import air.runtime.api.Emitter;
import air.runtime.api.SinkFactory;
import air.runtime.api.SinkWriter;
import air.runtime.api.SourceContext;
import air.runtime.api.SourceFactory;
import air.runtime.api.SourceReader;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;

/** Helpers shared by the file source tests: waiting on a condition, a sink that keeps its rows as state, a source that holds. */
final class FileTestKit {

    /** How long a test waits for something that takes milliseconds when it works. */
    static final Duration DEADLINE = Duration.ofSeconds(20);

    private FileTestKit() {
    }

    /** Small batches so that several batches, barriers and checkpoints pass while a few thousand lines are read. */
    static JobConfig config(String name, int workers) {
        return JobConfig.defaults().name(name).workers(workers).batchSize(16).queueCapacity(4);
    }

    /** Polls {@code condition} until it holds; fails naming {@code what} (and {@code state}) past the deadline. */
    static void awaitUntil(String what, BooleanSupplier condition, Supplier<String> state) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not within " + DEADLINE + ": " + what + " (" + state.get() + ")");
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    /**
     * Joins {@code job}, failing naming {@code what} when it has not ended by the deadline (it is
     * then cancelled). Its status is RUNNING until someone joins it: the joiner winds it down.
     */
    static void joinWithin(Job job, String what) {
        CompletableFuture<Void> joined = CompletableFuture.runAsync(job::join, r -> Thread.ofPlatform().start(r));
        try {
            joined.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            job.cancel();
            fail("not within " + DEADLINE + ": " + what + " (" + job.progressReport() + ")");
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Writes {@code bytes} under a hidden name in {@code dir}, then moves it to {@code name} at once: the source sees it whole. */
    static void dropIn(Path dir, String name, byte[] bytes) throws IOException {
        Path hidden = dir.resolve("." + name + ".tmp");
        Files.write(hidden, bytes);
        Files.move(hidden, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE);
    }

    /** Counts each element: the multiset a test compares. */
    static <T> Map<T, Integer> multiset(Collection<? extends T> items) {
        Map<T, Integer> out = new TreeMap<>();
        for (T item : items) {
            out.merge(item, 1, Integer::sum);
        }
        return out;
    }

    /** The sum of the meter {@code air.records.bad} of job {@code job} under policy {@code policy}, over every operator. */
    static double badRecords(MeterRegistry registry, String job, String policy) {
        return registry.find("air.records.bad").tag("job", job).tag("policy", policy).counters().stream()
                .mapToDouble(Counter::count).sum();
    }

    /** Asserts that no element of {@code items} appears twice, naming the first that does. */
    static void assertNoDuplicates(Collection<String> items) {
        Map<String, Integer> counted = multiset(items);
        assertThat(counted.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList())
                .as("rows seen more than once").isEmpty();
    }

    /**
     * Keeps each writer's rows as its checkpointed state, as a durable sink would: a restore brings
     * back the rows of the checkpoint, a restore onto another layout merges the earlier writers'.
     * The rows of the writers of this sink's run can be read at any time, while the job runs too.
     */
    static final class KeptRows<T> implements SinkFactory<T> {
        private final Function<? super T, String> format;
        private final Map<Integer, List<String>> writers = new ConcurrentHashMap<>();
        final AtomicInteger restoredRescaled = new AtomicInteger();

        KeptRows(Function<? super T, String> format) {
            this.format = format;
        }

        @Override
        public String describe() {
            return "kept rows";
        }

        /** The rows every writer of this sink holds now. */
        List<String> rows() {
            List<String> all = new ArrayList<>();
            for (List<String> rows : writers.values()) {
                synchronized (rows) {
                    all.addAll(rows);
                }
            }
            return all;
        }

        int size() {
            int n = 0;
            for (List<String> rows : writers.values()) {
                synchronized (rows) {
                    n += rows.size();
                }
            }
            return n;
        }

        @Override
        public SinkWriter<T> open(int instance, int parallelism) {
            List<String> kept = new ArrayList<>();
            if (writers.putIfAbsent(instance, kept) != null) {
                throw new IllegalStateException("kept rows: instance " + instance + " opened twice; use a new sink per run");
            }
            return new CheckpointedSinkWriter<>() {
                @Override
                public void write(T item) {
                    String row = format.apply(item);
                    synchronized (kept) {
                        kept.add(row);
                    }
                }

                @Override
                public byte[] snapshot(long checkpointId) {
                    synchronized (kept) {
                        return encode(kept);
                    }
                }

                @Override
                public void restore(byte[] state) {
                    synchronized (kept) {
                        kept.clear();
                        kept.addAll(decode(state));
                    }
                }

                @Override
                public void restoreRescaled(long checkpointId, List<List<byte[]>> earlier) {
                    restoredRescaled.incrementAndGet();
                    synchronized (kept) {
                        kept.clear();
                        for (List<byte[]> chain : earlier) {
                            kept.addAll(decode(chain.get(chain.size() - 1))); // whole snapshots only: the newest is all of it
                        }
                    }
                }

                @Override
                public void close() {
                }
            };
        }

        private static byte[] encode(List<String> rows) {
            try {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                DataOutputStream out = new DataOutputStream(bytes);
                out.writeInt(rows.size());
                for (String row : rows) {
                    out.writeUTF(row);
                }
                out.flush();
                return bytes.toByteArray();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private static List<String> decode(byte[] state) {
            try {
                DataInputStream in = new DataInputStream(new ByteArrayInputStream(state));
                int n = in.readInt();
                List<String> rows = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    rows.add(in.readUTF());
                }
                return rows;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * A source that reads through another (a file source) but, in each instance, holds after
     * {@code holdAt} records (reads return nothing, so barriers and checkpoints go on) until
     * {@code release} holds: this, not timing, makes a run reach the checkpoints a test needs
     * before its input ends. Its state is the inner reader's, untouched.
     */
    static final class Held<T> implements SourceFactory<T> {
        private final SourceFactory<T> inner;
        private final long holdAt;
        private final BooleanSupplier release;
        /** Instances that reached their hold (or ended before it). */
        final AtomicInteger holding = new AtomicInteger();

        Held(SourceFactory<T> inner, long holdAt, BooleanSupplier release) {
            this.inner = inner;
            this.holdAt = holdAt;
            this.release = release;
        }

        @Override
        public String describe() {
            return "held " + inner.describe();
        }

        @Override
        public SourceReader<T> createReader(int instance, int parallelism) {
            CheckpointedSourceReader<T> reader = (CheckpointedSourceReader<T>) inner.createReader(instance, parallelism);
            return new CheckpointedSourceReader<>() {
                private long emitted;
                private boolean counted;

                @Override
                public int read(int max, Emitter<? super T> out) {
                    boolean released = release.getAsBoolean();
                    if (!released && emitted >= holdAt) {
                        hold();
                        return 0;
                    }
                    int n = reader.read(released ? max : (int) Math.min(max, holdAt - emitted), out);
                    if (n == EXHAUSTED) {
                        hold();
                        return n;
                    }
                    emitted += n;
                    return n;
                }

                private void hold() {
                    if (!counted) {
                        counted = true;
                        holding.incrementAndGet();
                    }
                }

                @Override
                public void open(SourceContext context) {
                    reader.open(context);
                }

                @Override
                public byte[] snapshotState(long checkpointId) {
                    return reader.snapshotState(checkpointId);
                }

                @Override
                public void restoreState(byte[] state) {
                    reader.restoreState(state);
                }

                @Override
                public void restoreRescaled(long checkpointId, List<byte[]> earlierInstances) {
                    reader.restoreRescaled(checkpointId, earlierInstances);
                }

                @Override
                public long position() {
                    return reader.position();
                }

                @Override
                public String describePosition() {
                    return reader.describePosition();
                }

                @Override
                public void close() {
                    reader.close();
                }

                @Override
                public void abort() {
                    reader.abort();
                }
            };
        }
    }
}
