package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.dsl.TestPipelines.Event;
import air.runtime.Job;
import air.runtime.JobConfig;
import air.runtime.JobFailedException;
import air.runtime.api.BadRecordPolicy;
import air.runtime.api.CheckpointedSinkWriter;
import air.runtime.api.Emitter;
import air.runtime.api.SinkFactory;
import air.runtime.api.SinkWriter;
import air.runtime.api.TimeSource;
import air.runtime.api.WindowResult;
import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import air.runtime.sink.CollectSink;
import air.runtime.source.split.SplitContext;
import air.runtime.source.split.SplitReader;
import air.runtime.source.split.SplitSource;
import air.runtime.source.split.Splits;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Event time per split: a source instance that reads several splits in turn, each in event-time
 * order but read at different speeds (one split's batch runs far ahead of another's), loses no
 * record as late; a split that is slow to give its first record holds the watermark, an empty one
 * stops holding once idle, and a job that fails and resumes from a checkpoint gives exactly the
 * windows of a run without failure.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SplitEventTimeTest {

    private static final int SPLITS = 4;
    private static final long N = 2_000;
    private static final int KEYS = 3;

    /** Processing time that never moves: no split or instance ever counts as idle. */
    private static final TimeSource FROZEN = new TimeSource() {
        @Override
        public long nanoTime() {
            return 0;
        }

        @Override
        public long currentTimeMillis() {
            return 0;
        }
    };

    /** Processing time that moves when a test's split says. */
    private static final class SteppedClock implements TimeSource {
        final AtomicLong nanos = new AtomicLong();

        @Override
        public long nanoTime() {
            return nanos.get();
        }

        @Override
        public long currentTimeMillis() {
            return nanos.get() / 1_000_000L;
        }
    }

    /** One in-memory split: its records, how many it gives per read at most, and what it does around them. */
    private record Split(List<Event> events, int perRead, int emptyReadsFirst, int holdAt, BooleanSupplier release,
                         BooleanSupplier endWhen, Runnable atHalf) {

        Split(List<Event> events, int perRead) {
            this(events, perRead, 0, Integer.MAX_VALUE, () -> true, () -> true, () -> { });
        }
    }

    /**
     * In-memory splits {@code s0 .. s<n-1>}; split {@code i} is read by instance {@code i mod
     * parallelism}. A reader gives nothing for its split's first {@code emptyReadsFirst} reads,
     * holds (reads give nothing) at position {@code holdAt} until {@code release}, runs
     * {@code atHalf} once halfway, and after its last record gives nothing until {@code endWhen},
     * then is finished. Positions are record indexes: replayable.
     */
    private record MemorySplits(List<Split> splits) implements Splits<Event> {

        @Override
        public List<String> discover() {
            return IntStream.range(0, splits.size()).mapToObj(i -> "s" + i).toList();
        }

        @Override
        public int ownerOf(String split, int parallelism) {
            return Integer.parseInt(split.substring(1)) % parallelism;
        }

        @Override
        public SplitReader<Event> open(String id, byte[] position, SplitContext context) {
            Split split = splits.get(Integer.parseInt(id.substring(1)));
            int start = position == null ? 0 : ByteBuffer.wrap(position).getInt();
            return new SplitReader<>() {
                int next = start;
                int emptyReads;
                boolean pastHalf = start >= split.events().size() / 2;

                @Override
                public int read(int max, Emitter<? super Event> out) {
                    if (emptyReads < split.emptyReadsFirst()) {
                        emptyReads++;
                        return 0;
                    }
                    if (next >= split.events().size()) {
                        return split.endWhen().getAsBoolean() ? FINISHED : 0;
                    }
                    if (next >= split.holdAt() && !split.release().getAsBoolean()) {
                        return 0;
                    }
                    if (!pastHalf && next >= split.events().size() / 2) {
                        pastHalf = true;
                        split.atHalf().run();
                    }
                    int until = Math.min(split.events().size(), next + Math.min(max, split.perRead()));
                    if (next < split.holdAt()) {
                        until = Math.min(until, split.holdAt());
                    }
                    int n = until - next;
                    while (next < until) {
                        out.emit(split.events().get(next++));
                    }
                    return n;
                }

                @Override
                public byte[] position() {
                    return ByteBuffer.allocate(4).putInt(next).array();
                }

                @Override
                public String origin() {
                    return id + "@" + next;
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public Duration discoveryInterval() {
            return Duration.ZERO;
        }

        @Override
        public String describe() {
            return "memory splits";
        }
    }

    /** Timestamps {@code 0 .. N-1} dealt to the splits in turn (split {@code i} gets {@code t ≡ i mod SPLITS}): each in order. */
    private static List<List<Event>> interleaved() {
        List<List<Event>> perSplit = new ArrayList<>();
        for (int i = 0; i < SPLITS; i++) {
            perSplit.add(new ArrayList<>());
        }
        for (long t = 0; t < N; t++) {
            perSplit.get((int) (t % SPLITS)).add(new Event("k" + t % KEYS, t, 1));
        }
        return perSplit;
    }

    /** Splits that give 1, 3, 7 and 16 records a read: split 3 soon runs hundreds of ms of event time ahead of split 0. */
    private static final int[] PER_READ = {1, 3, 7, 16};

    private static List<Split> readAtDifferentSpeeds(List<List<Event>> events) {
        List<Split> splits = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            splits.add(new Split(events.get(i), PER_READ[i]));
        }
        return splits;
    }

    /** What counting every event of {@code events} per tumbling window of 10 and key gives. */
    private static Map<String, Long> expected(List<List<Event>> events) {
        Map<String, Long> counts = new TreeMap<>();
        for (List<Event> split : events) {
            for (Event e : split) {
                long start = Math.floorDiv(e.time(), 10) * 10;
                counts.merge("[" + start + "," + (start + 10) + ") " + e.key(), 1L, Long::sum);
            }
        }
        return counts;
    }

    private static Map<String, Long> collected(List<WindowResult<String, Long>> results) {
        Map<String, Long> out = new TreeMap<>();
        for (WindowResult<String, Long> r : results) {
            Long before = out.put("[" + r.start() + "," + r.end() + ") " + r.key(), r.value());
            assertThat(before).as("result emitted twice: %s", r).isNull();
        }
        return out;
    }

    /** Reads {@code splits}, stamps event time with no disorder allowed, and counts per key and tumbling window of 10. */
    private static Job run(List<Split> splits, JobConfig config, CollectSink<WindowResult<String, Long>> sink) {
        Pipeline p = Pipeline.create();
        p.readFrom(new SplitSource<>(new MemorySplits(splits), BadRecordPolicy.fail()))
                .withTimestamps(Event::time, 0)
                .keyBy(Event::key)
                .window(Windows.tumbling(10))
                .aggregate(Aggregations.count())
                .writeTo(sink);
        return p.execute(config);
    }

    @ParameterizedTest(name = "instances={0} routing={1} progress={2}")
    @CsvSource({"1,KEY,WATERMARK", "1,AIR,HEWMELD", "2,KEY,HEWMELD", "2,AIR,WATERMARK"})
    void splits_in_order_but_read_ahead_of_each_other_lose_no_record(int instances, Routing routing, Progress progress) {
        List<List<Event>> events = interleaved();
        CollectSink<WindowResult<String, Long>> sink = Sinks.collect();
        Job job = run(readAtDifferentSpeeds(events), config(instances).batchSize(16).routing(routing).progress(progress), sink);
        assertThat(job.summary().lateRecords()).as("late records").isZero();
        assertThat(collected(sink.items())).isEqualTo(expected(events));
    }

    @ParameterizedTest(name = "progress={0}")
    @CsvSource({"WATERMARK", "HEWMELD"})
    void a_split_slow_to_give_its_first_record_holds_event_time_and_neither_it_nor_the_others_lose_a_record(Progress progress) {
        List<List<Event>> events = interleaved();
        List<Split> splits = readAtDifferentSpeeds(events);
        Split slow = splits.get(1);
        // split 1 gives nothing for its first 50 reads: the others are far ahead when its first record comes
        splits.set(1, new Split(slow.events(), slow.perRead(), 50, Integer.MAX_VALUE, () -> true, () -> true, () -> { }));
        CollectSink<WindowResult<String, Long>> sink = Sinks.collect();
        Job job = run(splits, config(1).batchSize(16).progress(progress).timeSource(FROZEN), sink);
        assertThat(job.summary().lateRecords()).as("late records").isZero();
        assertThat(collected(sink.items())).isEqualTo(expected(events));
    }

    @ParameterizedTest(name = "progress={0}")
    @CsvSource({"WATERMARK", "HEWMELD"})
    void an_empty_split_that_stays_open_stops_holding_windows_once_idle(Progress progress) throws InterruptedException {
        SteppedClock clock = new SteppedClock();
        List<Event> events = new ArrayList<>();
        for (long t = 0; t < 200; t++) {
            events.add(new Event("k" + t % KEYS, t, 1));
        }
        // windows [0,10) .. [180,190) fire once split 0 is at 199, if the empty split does not hold them
        CountDownLatch fired = new CountDownLatch(19 * KEYS);
        AtomicBoolean firedWhileOpen = new AtomicBoolean();
        AtomicBoolean dataDone = new AtomicBoolean();
        BooleanSupplier windowsFiredOrGaveUp = () -> {
            try {
                firedWhileOpen.set(fired.await(20, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            dataDone.set(true);
            return true;
        };
        // split 0: its records, 10 a read; halfway it moves processing time past the idle timeout; then it waits for the windows
        Split data = new Split(events, 10, 0, Integer.MAX_VALUE, () -> true, windowsFiredOrGaveUp,
                () -> clock.nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(500)));
        // split 1: open, and empty, until split 0 is done
        Split empty = new Split(List.of(), 1, 0, Integer.MAX_VALUE, () -> true, dataDone::get, () -> { });
        List<WindowResult<String, Long>> results = new ArrayList<>();
        Pipeline p = Pipeline.create();
        p.readFrom(new SplitSource<>(new MemorySplits(List.of(data, empty)), BadRecordPolicy.fail()))
                .withTimestamps(Event::time, 0)
                .keyBy(Event::key)
                .window(Windows.tumbling(10))
                .aggregate(Aggregations.count())
                .writeTo(Sinks.callback((WindowResult<String, Long> r) -> {
                    synchronized (results) {
                        results.add(r);
                    }
                    fired.countDown();
                }));
        Job job = p.execute(config(1).batchSize(16).progress(progress).idleTimeoutMs(100).timeSource(clock));
        assertThat(firedWhileOpen).as("windows fired while the empty split was open; progress: %s", job.progressReport()).isTrue();
        assertThat(job.summary().lateRecords()).isZero();
        assertThat(collected(results)).isEqualTo(expected(List.of(events)));
    }

    /**
     * Checkpointed runs: every split holds at a third of its records until two checkpoints are
     * written, then a map fails once; the second run resumes (on {@code resumeInstances}). Every
     * split gives its records in order, and a few records far behind (timestamp -1000) that are
     * late whatever the interleaving.
     */
    @ParameterizedTest(name = "instances={0}->{1} progress={2}")
    @CsvSource({"1,1,WATERMARK", "2,2,HEWMELD", "2,1,WATERMARK", "1,2,WATERMARK"})
    void a_job_that_fails_resumes_with_exactly_the_windows_and_late_records_of_a_run_without_failure(int instances, int resumeInstances,
                                                                                                    Progress progress, @TempDir Path dir) {
        List<List<Event>> events = interleaved();
        long lateEach = 3;
        List<List<Event>> withLate = new ArrayList<>();
        for (List<Event> split : events) {
            List<Event> s = new ArrayList<>(split);
            for (int k = 1; k <= lateEach; k++) {
                s.add(k * s.size() / (int) (lateEach + 1), new Event("k0", -1000, 1)); // at a quarter, half and three quarters
            }
            withLate.add(s);
        }
        CheckpointRecoveryTest.WatchedStore store = new CheckpointRecoveryTest.WatchedStore(dir);
        assertThatThrownBy(() -> runCheckpointed(withLate, instances, progress, store, new RowsSink(), 2, new SimpleMeterRegistry()))
                .isInstanceOf(JobFailedException.class).hasMessageContaining("injected failure");
        SimpleMeterRegistry second = new SimpleMeterRegistry();
        RowsSink sink = new RowsSink();
        Job job = runCheckpointed(withLate, resumeInstances, progress, store, sink, 0, second);
        assertThat(second.find("air.recoveries").counter().count()).as("the second run resumed from a checkpoint").isEqualTo(1);
        assertThat(sink.counts()).isEqualTo(expected(events));
        assertThat(job.summary().lateRecords()).as("exactly the records far behind, over both runs").isEqualTo(SPLITS * lateEach);
    }

    /** Keeps its rows as its state, so that they move with it to another layout; one per run. */
    private static final class RowsSink implements SinkFactory<WindowResult<String, Long>> {
        private final Map<Integer, List<String>> rows = new ConcurrentHashMap<>();

        @Override
        public SinkWriter<WindowResult<String, Long>> open(int instance, int parallelism) {
            List<String> mine = new ArrayList<>();
            rows.put(instance, mine);
            return new CheckpointedSinkWriter<>() {
                @Override
                public void write(WindowResult<String, Long> r) {
                    mine.add("[" + r.start() + "," + r.end() + ") " + r.key() + "=" + r.value());
                }

                @Override
                public void close() {
                }

                @Override
                public byte[] snapshot(long checkpointId) {
                    return String.join("\n", mine).getBytes(StandardCharsets.UTF_8);
                }

                @Override
                public void restore(byte[] state) {
                    mine.clear();
                    add(state);
                }

                @Override
                public void restoreRescaled(long checkpointId, List<List<byte[]>> earlier) {
                    mine.clear();
                    for (List<byte[]> states : earlier) {
                        add(states.get(states.size() - 1)); // whole snapshots only: the newest is all of it
                    }
                }

                private void add(byte[] state) {
                    String text = new String(state, StandardCharsets.UTF_8);
                    if (!text.isEmpty()) {
                        mine.addAll(List.of(text.split("\n")));
                    }
                }
            };
        }

        @Override
        public String describe() {
            return "rows";
        }

        /** Every writer's rows, as window and key to count; a row twice fails. */
        Map<String, Long> counts() {
            Map<String, Long> out = new TreeMap<>();
            for (List<String> writer : rows.values()) {
                for (String row : writer) {
                    int eq = row.lastIndexOf('=');
                    Long before = out.put(row.substring(0, eq), Long.parseLong(row.substring(eq + 1)));
                    assertThat(before).as("result emitted twice: %s", row).isNull();
                }
            }
            return out;
        }
    }

    private static Job runCheckpointed(List<List<Event>> events, int instances, Progress progress, CheckpointRecoveryTest.WatchedStore store,
                                       RowsSink sink, int failAfterWrites, SimpleMeterRegistry registry) {
        AtomicBoolean armed = new AtomicBoolean(failAfterWrites > 0);
        BooleanSupplier release = () -> store.writes.get() >= failAfterWrites;
        List<Split> splits = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            splits.add(new Split(events.get(i), PER_READ[i], 0, events.get(i).size() / 3, release, () -> true, () -> { }));
        }
        Pipeline p = Pipeline.create();
        p.readFrom(new SplitSource<>(new MemorySplits(splits), BadRecordPolicy.fail()))
                .map(e -> {
                    if (armed.get() && store.writes.get() >= failAfterWrites && armed.getAndSet(false)) {
                        throw new IllegalStateException("injected failure");
                    }
                    return e;
                })
                .withTimestamps(Event::time, 0)
                .keyBy(Event::key)
                .window(Windows.tumbling(10))
                .aggregate(Aggregations.count())
                .writeTo(sink);
        return p.execute(config(instances).batchSize(16).progress(progress).checkpoints(store, 40).meterRegistry(registry)
                .fullCheckpointEvery(3));
    }
}
