package air.dsl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;


import air.runtime.JobConfig;
import air.runtime.JobFailedException;
import air.runtime.api.CheckpointedSinkWriter;
import air.runtime.api.Emitter;
import air.runtime.api.SinkFactory;
import air.runtime.api.SinkWriter;
import air.runtime.api.SourceFactory;
import air.runtime.api.SourceReader;
import air.runtime.api.WindowDefinition;
import air.runtime.sink.CollectSink;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/** Small helpers shared by the DSL tests. */
final class TestPipelines {

    private TestPipelines() {
    }

    /**
     * A small, fast configuration: tiny batches so that several batches and watermarks flow, and a
     * watermark after every batch so that no result depends on the wall clock.
     */
    static JobConfig config(int workers) {
        return JobConfig.defaults().name("test").workers(workers).batchSize(3).queueCapacity(4).watermarkIntervalMs(0);
    }

    /** A timestamped test record. */
    record Event(String key, long time, long value) { }

    /**
     * {@code n} events whose timestamps grow with jitter, each at most {@code disorder} behind the
     * newest so far, keyed {@code "k0" .. "k<keys-1>"}, with values in {@code [0, values)} (1 when
     * {@code values} is 1, drawing nothing).
     */
    static List<Event> disorderedEvents(SplittableRandom random, int n, long disorder, int keys, int values) {
        List<Event> events = new ArrayList<>(n);
        long newest = random.nextInt(50) - 25;
        for (int i = 0; i < n; i++) {
            newest += random.nextInt(4);
            long t = newest - (disorder == 0 ? 0 : random.nextLong(disorder + 1));
            String key = "k" + random.nextInt(keys);
            events.add(new Event(key, t, values == 1 ? 1 : random.nextInt(values)));
        }
        return events;
    }

    /**
     * What counting records {@code 0 .. n-1} (each its own timestamp) per window and key
     * {@code i % keys} must give: "[start,end) key" to count.
     */
    static Map<String, Long> expectedCounts(long n, long keys, WindowDefinition window) {
        Map<String, Long> counts = new TreeMap<>();
        for (long i = 0; i < n; i++) {
            for (long start = Math.floorDiv(i, window.slide()) * window.slide(); start > i - window.size(); start -= window.slide()) {
                counts.merge("[" + start + "," + (start + window.size()) + ") " + (i % keys), 1L, Long::sum);
            }
        }
        return counts;
    }

    /**
     * Records {@code 0 .. n-1}, round robin over the instances, each its own timestamp; an instance
     * holds at position {@code holdAt} (empty reads, so barriers and checkpoints go on) until
     * {@code release} is true. This, not timing, makes a run reach the checkpoints a test needs
     * before its input ends.
     */
    static final class HeldSource implements SourceFactory<Long> {
        private final long n;
        private final long holdAt;
        private final BooleanSupplier release;

        HeldSource(long n, long holdAt, BooleanSupplier release) {
            this.n = n;
            this.holdAt = holdAt;
            this.release = release;
        }

        @Override
        public SourceReader<Long> createReader(int instance, int parallelism) {
            long count = (n - instance + parallelism - 1) / parallelism;
            return new CountingReader(count) {
                @Override
                long until() {
                    return position < holdAt ? Math.min(holdAt, count) : release.getAsBoolean() ? count : position;
                }

                @Override
                long valueAt(long p) {
                    return instance + p * parallelism;
                }
            };
        }

        @Override
        public String describe() {
            return "held generator";
        }
    }

    /**
     * A test source's reader of {@code count} values: its position is how many it emitted (so a
     * restore seeks there); each read emits the values at the next positions up to {@link #until}
     * (which may hold it back), and {@link #exhausted} runs once it has emitted all.
     */
    abstract static class CountingReader implements SourceReader<Long> {
        final long count;
        long position;

        CountingReader(long count) {
            this.count = count;
        }

        /** The position to emit up to now (at most {@code count}; {@code position}: hold). */
        abstract long until();

        /** The value at position {@code p}. */
        abstract long valueAt(long p);

        /** Called at every read after the last value. */
        void exhausted() {
        }

        @Override
        public int read(int max, Emitter<? super Long> out) {
            if (position >= count) {
                exhausted();
                return EXHAUSTED;
            }
            int k = (int) Math.max(0, Math.min(max, Math.min(until(), count) - position));
            for (int j = 0; j < k; j++) {
                out.emit(valueAt(position++));
            }
            return k;
        }

        @Override
        public long position() {
            return position;
        }

        @Override
        public void seek(long p) {
            position = p;
        }
    }

    /** A checkpointed run of a test's job into {@code sink}, failing once {@code failAfterWrites} checkpoints were written (0: never). */
    @FunctionalInterface
    interface CheckpointedRun {
        void run(CheckpointRecoveryTest.WatchedStore store, CollectSink<String> sink, int failAfterWrites, SimpleMeterRegistry registry);
    }

    /**
     * Runs {@code run} into {@code dir} until its injected failure after two checkpoints, then again
     * from the directory: the second run must resume from a checkpoint and the rows of both runs
     * together must be {@code expected} (row to how many times), nothing lost, nothing twice.
     */
    static void failsThenResumesExactlyOnce(Path dir, CheckpointedRun run, Map<String, Integer> expected) {
        CheckpointRecoveryTest.WatchedStore store = new CheckpointRecoveryTest.WatchedStore(dir);
        CollectSink<String> sink = Sinks.collect();
        assertThatThrownBy(() -> run.run(store, sink, 2, new SimpleMeterRegistry())).isInstanceOf(JobFailedException.class)
                .hasMessageContaining("injected failure");
        SimpleMeterRegistry second = new SimpleMeterRegistry();
        run.run(store, sink, 0, second);
        assertThat(second.find("air.recoveries").counter().count()).as("the second run resumed from a checkpoint").isEqualTo(1);
        Map<String, Integer> got = new TreeMap<>();
        for (String line : sink.items()) {
            got.merge(line, 1, Integer::sum);
        }
        assertThat(got).isEqualTo(expected);
    }

    /** Keeps each writer's rows in its snapshot, as a durable sink would, and the closed writers' rows of one peer. */
    static class KeptRows<T> implements SinkFactory<T> {
        final List<String> closed = new ArrayList<>();
        private final Function<T, String> format;

        KeptRows(Function<T, String> format) {
            this.format = format;
        }

        @Override
        public String describe() {
            return "kept rows";
        }

        @Override
        public SinkWriter<T> open(int instance, int parallelism) {
            List<String> kept = new ArrayList<>();
            return new CheckpointedSinkWriter<>() {
                @Override public void write(T item) {
                    kept.add(format.apply(item));
                }
                @Override public byte[] snapshot(long id) {
                    return String.join("\n", kept).getBytes(StandardCharsets.UTF_8);
                }
                @Override public void restore(byte[] state) {
                    kept.clear();
                    String text = new String(state, StandardCharsets.UTF_8);
                    if (!text.isEmpty()) {
                        kept.addAll(List.of(text.split("\n")));
                    }
                }
                @Override public void close() {
                    synchronized (closed) {
                        closed.addAll(kept);
                    }
                }
            };
        }
    }
}
