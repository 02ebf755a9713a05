package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.channels.InJvmTransports;
import air.channels.Transport;
import air.dsl.TestPipelines.Event;
import air.runtime.Cluster;
import air.runtime.Job;
import air.runtime.JobConfig;
import air.runtime.JobFailedException;
import air.runtime.api.Codec;
import air.runtime.api.Codecs;
import air.runtime.api.KeyedProcessFunction;
import air.runtime.api.ListState;
import air.runtime.api.MapState;
import air.runtime.api.OutputTag;
import air.runtime.api.ProcessContext;
import air.runtime.api.StateDescriptor;
import air.runtime.api.TimeDomain;
import air.runtime.api.TimeSource;
import air.runtime.api.ValueState;
import air.runtime.api.WindowResult;
import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import air.runtime.sink.CollectSink;
import air.runtime.source.PushSource;
import air.wire.WireIn;
import air.wire.WireOut;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Keyed process functions: per-key state and timers, compared with plain loops over the same
 * input, under both progress modes and routings, on 1-3 workers and on two in-JVM peers.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProcessFunctionTest {

    static final long BUCKET = 100;

    /** One key's count in one bucket of event time, emitted by the bucket's timer at {@code start + BUCKET - 1}. */
    record Bucket(String key, long start, long count) { }

    static final StateDescriptor<MapState<Long, Long>> COUNTS = StateDescriptor.map("counts", Codecs.LONG, Codecs.LONG);

    /** Counts each key's records per bucket; the bucket's event-time timer emits the count and forgets it. */
    static final class BucketCounter implements KeyedProcessFunction<String, Event, Bucket> {
        @Override
        public void process(Event e, ProcessContext<String, Bucket> ctx) {
            long start = Math.floorDiv(ctx.timestamp(), BUCKET) * BUCKET;
            MapState<Long, Long> counts = ctx.state(COUNTS);
            Long before = counts.get(start);
            counts.put(start, before == null ? 1 : before + 1);
            ctx.registerEventTimeTimer(start + BUCKET - 1);
        }

        @Override
        public void onTimer(long time, TimeDomain domain, ProcessContext<String, Bucket> ctx) {
            long start = time - BUCKET + 1;
            MapState<Long, Long> counts = ctx.state(COUNTS);
            ctx.emit(new Bucket(ctx.key(), start, counts.get(start)));
            counts.remove(start);
        }
    }

    static final Codec<Event> EVENTS = new Codec<>() {
        @Override
        public void write(Event e, WireOut out) {
            out.putString(e.key()).putLong(e.time()).putLong(e.value());
        }

        @Override
        public Event read(WireIn in) {
            return new Event(in.getString(), in.getLong(), in.getLong());
        }
    };

    static Map<String, Long> plainBucketCounts(List<Event> events) {
        Map<String, Long> out = new TreeMap<>();
        for (Event e : events) {
            out.merge(e.key() + " " + Math.floorDiv(e.time(), BUCKET) * BUCKET, 1L, Long::sum);
        }
        return out;
    }

    static Map<String, Long> asMap(List<Bucket> buckets) {
        Map<String, Long> out = new TreeMap<>();
        for (Bucket b : buckets) {
            assertThat(out.put(b.key() + " " + b.start(), b.count())).as("bucket emitted twice: " + b).isNull();
        }
        return out;
    }

    /** The process output, and the same output summed per (tumbling window of its event time, key) downstream. */
    record Run(Map<String, Long> buckets, Map<String, Long> windowed) { }

    static Run runBuckets(List<Event> events, JobConfig config, long disorder, boolean withCodec) {
        Pipeline p = Pipeline.create();
        CollectSink<Bucket> sink = Sinks.collect();
        CollectSink<WindowResult<String, Long>> windows = Sinks.collect();
        KeyedStage<String, Event> keyed = p.readFrom(Sources.fromList(events)).withTimestamps(Event::time, disorder).keyBy(Event::key);
        Stage<Bucket> buckets = withCodec ? keyed.process(new BucketCounter(), EVENTS, COUNTS) : keyed.process(new BucketCounter(), COUNTS);
        buckets.writeTo(sink);
        // the output's event time is the timer's, start + BUCKET - 1: each bucket lands in its own window, none late
        buckets.keyBy(Bucket::key).window(Windows.tumbling(BUCKET)).aggregate(Aggregations.sum(Bucket::count)).writeTo(windows);
        p.execute(config);
        Map<String, Long> windowed = new TreeMap<>();
        for (WindowResult<String, Long> r : windows.items()) {
            assertThat(r.end() - r.start()).isEqualTo(BUCKET);
            windowed.put(r.key() + " " + r.start(), r.value());
        }
        return new Run(asMap(sink.items()), windowed);
    }

    @ParameterizedTest(name = "seed={0} workers={1} progress={2} routing={3}")
    @CsvSource({"1,1,WATERMARK,KEY", "2,2,WATERMARK,AIR", "3,3,WATERMARK,KEY", "4,1,HEWMELD,AIR", "5,2,HEWMELD,KEY", "6,3,HEWMELD,AIR"})
    void per_key_bucket_counts_by_event_time_timers_equal_a_plain_loop(long seed, int workers, Progress progress, Routing routing) {
        SplittableRandom random = new SplittableRandom(seed);
        long disorder = 1 + random.nextInt(40);
        List<Event> events = TestPipelines.disorderedEvents(random, 1_500 + random.nextInt(1_000), disorder, 1 + random.nextInt(9), 1);
        Map<String, Long> expected = plainBucketCounts(events);
        Run run = runBuckets(events, config(workers).batchSize(1 + random.nextInt(8)).progress(progress).routing(routing), disorder, false);
        assertThat(run.buckets()).isEqualTo(expected);
        assertThat(run.windowed()).as("every output in the window of its timer's time, none late").isEqualTo(expected);
    }

    @ParameterizedTest(name = "progress={0}")
    @CsvSource({"WATERMARK", "HEWMELD"})
    void two_in_jvm_peers_count_what_a_plain_loop_counts(Progress progress) throws Exception {
        SplittableRandom random = new SplittableRandom(11);
        List<Event> events = TestPipelines.disorderedEvents(random, 2_000, 20, 7, 1);
        List<Transport> net = InJvmTransports.network(2);
        List<CompletableFuture<Run>> parts = new ArrayList<>();
        for (Transport t : net) {
            parts.add(CompletableFuture.supplyAsync(() -> {
                try (Cluster c = Cluster.over(t, new Cluster.Options(50, 5_000, 20_000))) {
                    return runBuckets(events, config(2).progress(progress).cluster(c), 20, true);
                }
            }, r -> Thread.ofPlatform().start(r)));
        }
        Map<String, Long> buckets = new TreeMap<>();
        Map<String, Long> windowed = new TreeMap<>();
        for (CompletableFuture<Run> part : parts) {
            Run r = part.get(60, TimeUnit.SECONDS);
            r.buckets().forEach((k, v) -> assertThat(buckets.put(k, v)).as("on both peers: " + k).isNull());
            windowed.putAll(r.windowed());
        }
        assertThat(buckets).isEqualTo(plainBucketCounts(events));
        assertThat(windowed).isEqualTo(plainBucketCounts(events));
    }

    // ---- state time to live, in event time ----

    static final StateDescriptor<ValueState<Long>> LAST = StateDescriptor.value("last", Codecs.LONG).withTtl(1_000);

    /** Per record: whether the key's previous write is still alive at the record's time, then a write. */
    static final class TtlProbe implements KeyedProcessFunction<String, Event, String> {
        @Override
        public void process(Event e, ProcessContext<String, String> ctx) {
            ValueState<Long> last = ctx.state(LAST);
            ctx.emit(e.key() + "@" + e.time() + (last.value() == null ? " none" : " saw " + last.value()));
            last.update(e.time());
        }
    }

    @ParameterizedTest(name = "progress={0}")
    @CsvSource({"WATERMARK", "HEWMELD"})
    void state_expires_by_event_time_ttl_as_a_plain_loop_says(Progress progress) {
        SplittableRandom random = new SplittableRandom(21);
        List<Event> events = new ArrayList<>();
        long t = 0;
        for (int i = 0; i < 600; i++) { // in time order: a key's records meet the function in order on one worker
            t += random.nextInt(4) == 0 ? 900 + random.nextInt(300) : random.nextInt(40); // gaps around the ttl
            events.add(new Event("k" + random.nextInt(3), t, 1));
        }
        List<String> expected = new ArrayList<>();
        Map<String, Long> written = new TreeMap<>();
        for (Event e : events) {
            Long w = written.get(e.key());
            expected.add(e.key() + "@" + e.time() + (w == null || e.time() - w >= 1_000 ? " none" : " saw " + w));
            written.put(e.key(), e.time());
        }
        assertThat(expected.stream().filter(x -> x.endsWith("none")).count()).as("some state expired").isGreaterThan(3);
        assertThat(expected).anyMatch(x -> x.contains("saw"));
        Pipeline p = Pipeline.create();
        CollectSink<String> sink = Sinks.collect();
        p.readFrom(Sources.fromList(events)).withTimestamps(Event::time, 0).keyBy(Event::key).process(new TtlProbe(), LAST).writeTo(sink);
        p.execute(config(1).progress(progress));
        assertThat(sink.items()).containsExactlyElementsOf(expected);
    }

    // ---- list and map state ----

    static final StateDescriptor<ListState<Long>> VALUES = StateDescriptor.list("values", Codecs.LONG);
    static final StateDescriptor<MapState<Long, Long>> HISTOGRAM = StateDescriptor.map("histogram", Codecs.LONG, Codecs.LONG);

    /** Keeps every value (a 0 clears the list) and a histogram of values (a 0 removes value 1's entry); reports at the end of time. */
    static final class Collector implements KeyedProcessFunction<String, Event, String> {
        @Override
        public void process(Event e, ProcessContext<String, String> ctx) {
            ListState<Long> values = ctx.state(VALUES);
            MapState<Long, Long> histogram = ctx.state(HISTOGRAM);
            if (e.value() == 0) {
                values.clear();
                histogram.remove(1L);
            } else {
                values.add(e.value());
                Long n = histogram.get(e.value());
                histogram.put(e.value(), n == null ? 1 : n + 1);
            }
            ctx.registerEventTimeTimer(Long.MAX_VALUE - 1); // fires once, when the input ends
        }

        @Override
        public void onTimer(long time, TimeDomain domain, ProcessContext<String, String> ctx) {
            ctx.emit(ctx.key() + " " + ctx.state(VALUES).get() + " " + ctx.state(HISTOGRAM).entries());
        }
    }

    @Test
    void list_and_map_state_hold_what_a_plain_loop_holds() {
        SplittableRandom random = new SplittableRandom(5);
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            events.add(new Event("k" + random.nextInt(4), i, random.nextInt(6)));
        }
        Map<String, List<Long>> lists = new TreeMap<>();
        Map<String, Map<Long, Long>> maps = new TreeMap<>();
        for (Event e : events) {
            List<Long> list = lists.computeIfAbsent(e.key(), k -> new ArrayList<>());
            Map<Long, Long> map = maps.computeIfAbsent(e.key(), k -> new LinkedHashMap<>());
            if (e.value() == 0) {
                list.clear();
                map.remove(1L);
            } else {
                list.add(e.value());
                map.merge(e.value(), 1L, Long::sum);
            }
        }
        List<String> expected = lists.keySet().stream().map(k -> k + " " + lists.get(k) + " " + maps.get(k)).sorted().toList();
        Pipeline p = Pipeline.create();
        CollectSink<String> sink = Sinks.collect();
        p.readFrom(Sources.fromList(events)).withTimestamps(Event::time, 0).keyBy(Event::key).process(new Collector(), VALUES, HISTOGRAM)
                .writeTo(sink);
        p.execute(config(1));
        assertThat(sink.items().stream().sorted().toList()).isEqualTo(expected);
    }

    // ---- side outputs and mapStateful ----

    static final OutputTag<String> ODD = OutputTag.of("odd");

    @Test
    void side_outputs_are_stages_of_their_own_and_leave_the_main_output() {
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            events.add(new Event("k" + i % 5, i, i));
        }
        Pipeline p = Pipeline.create();
        CollectSink<Long> evens = Sinks.collect();
        CollectSink<String> odds = Sinks.collect();
        Stage<Long> processed = p.readFrom(Sources.fromList(events)).withTimestamps(Event::time, 0).keyBy(Event::key)
                .process((Event e, ProcessContext<String, Long> ctx) -> {
                    if (e.value() % 2 == 0) {
                        ctx.emit(e.value());
                    } else {
                        ctx.output(ODD, ctx.key() + ":" + e.value());
                    }
                });
        processed.writeTo(evens);
        processed.sideOutput(ODD).writeTo(odds);
        p.execute(config(3));
        assertThat(evens.items()).containsExactlyInAnyOrderElementsOf(events.stream().filter(e -> e.value() % 2 == 0).map(Event::value)
                .toList());
        assertThat(odds.items()).containsExactlyInAnyOrderElementsOf(events.stream().filter(e -> e.value() % 2 == 1)
                .map(e -> e.key() + ":" + e.value()).toList());
    }

    @Test
    void outputs_to_a_tag_no_stage_reads_are_dropped_and_the_job_runs() {
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            events.add(new Event("k" + i % 3, i, i));
        }
        Pipeline p = Pipeline.create();
        CollectSink<Long> evens = Sinks.collect();
        p.readFrom(Sources.fromList(events)).withTimestamps(Event::time, 0).keyBy(Event::key)
                .process((Event e, ProcessContext<String, Long> ctx) -> {
                    if (e.value() % 2 == 0) {
                        ctx.emit(e.value());
                    } else {
                        ctx.output(ODD, ctx.key() + ":" + e.value()); // no sideOutput(ODD) reads it
                    }
                })
                .writeTo(evens);
        p.execute(config(2));
        assertThat(evens.items()).containsExactlyInAnyOrderElementsOf(events.stream().filter(e -> e.value() % 2 == 0).map(Event::value)
                .toList());
    }

    @Test
    void map_stateful_keeps_a_running_sum_per_key() {
        Pipeline p = Pipeline.create();
        CollectSink<String> sink = Sinks.collect();
        p.readFrom(Sources.generate(400, i -> i)).keyByLong(i -> i % 4)
                .mapStateful(AtomicLong::new, (AtomicLong sum, Long key, Long i) -> key + "=" + sum.addAndGet(i))
                .writeTo(sink);
        p.execute(config(2));
        long[] sums = new long[4];
        for (long i = 0; i < 400; i++) {
            sums[(int) (i % 4)] += i;
        }
        // a key's records come from more than one source instance: their order may differ, the final sums may not
        assertThat(sink.items()).hasSize(400).contains("0=" + sums[0], "1=" + sums[1], "2=" + sums[2], "3=" + sums[3]);
    }

    // ---- processing-time timers on the job's clock ----

    /** A processing-time clock a test moves by hand; durations follow the machine. */
    static final class ManualTime implements TimeSource {
        final AtomicLong millis = new AtomicLong();

        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public long currentTimeMillis() {
            return millis.get();
        }
    }

    @Test
    void processing_time_timers_fire_when_the_jobs_clock_reaches_them_even_without_input() throws Exception {
        ManualTime clock = new ManualTime();
        clock.millis.set(1_000);
        PushSource<String> input = Sources.push(16);
        LinkedBlockingQueue<String> out = new LinkedBlockingQueue<>();
        Pipeline p = Pipeline.create();
        p.readFrom(input).keyBy((String s) -> "one").process(new KeyedProcessFunction<String, String, String>() {
            @Override
            public void process(String record, ProcessContext<String, String> ctx) {
                if (record.equals("arm")) {
                    ctx.registerProcessingTimeTimer(ctx.currentProcessingTime() + 100);
                }
                ctx.emit(record + "@" + ctx.currentProcessingTime());
            }

            @Override
            public void onTimer(long time, TimeDomain domain, ProcessContext<String, String> ctx) {
                ctx.emit("fired " + domain + " " + time);
            }
        }).writeTo(Sinks.callback(out::add));
        Job job = p.submit(config(1).timeSource(clock).idleTimeoutMs(0));
        input.offer("arm");
        assertThat(out.poll(30, TimeUnit.SECONDS)).isEqualTo("arm@1000");
        clock.millis.set(1_099);
        input.offer("ping"); // handled after the clock moved: the timer is not due yet
        assertThat(out.poll(30, TimeUnit.SECONDS)).isEqualTo("ping@1099");
        clock.millis.set(1_100); // no input from here on: the idle operator must notice on its own
        assertThat(out.poll(30, TimeUnit.SECONDS)).isEqualTo("fired PROCESSING_TIME 1100");
        input.close();
        job.join();
        assertThat(out).isEmpty();
    }

    // ---- checkpoints: state and timers restored exactly ----

    static final StateDescriptor<MapState<Long, Long>> PER_BUCKET = StateDescriptor.map("perBucket", Codecs.LONG, Codecs.LONG);
    static final StateDescriptor<ListState<Long>> SEEN = StateDescriptor.list("seen", Codecs.LONG);
    static final StateDescriptor<ValueState<Long>> TOTAL = StateDescriptor.value("total", Codecs.LONG).withTtl(10_000);

    /** Counts records of {@code i % 13} per bucket (map state, event-time timers), keeps the bucket's records (list) and a total (value). */
    static final class CheckpointedCounter implements KeyedProcessFunction<Long, Long, String> {
        @Override
        public void process(Long i, ProcessContext<Long, String> ctx) {
            long start = Math.floorDiv(ctx.timestamp(), BUCKET) * BUCKET;
            MapState<Long, Long> perBucket = ctx.state(PER_BUCKET);
            Long n = perBucket.get(start);
            perBucket.put(start, n == null ? 1 : n + 1);
            ctx.state(SEEN).add(i);
            ValueState<Long> total = ctx.state(TOTAL);
            total.update(total.value() == null ? 1 : total.value() + 1);
            ctx.registerEventTimeTimer(start + BUCKET - 1);
        }

        @Override
        public void onTimer(long time, TimeDomain domain, ProcessContext<Long, String> ctx) {
            long start = time - BUCKET + 1;
            long sum = 0;
            List<Long> later = new ArrayList<>(); // records of later buckets may be in already (disorder across source instances)
            for (long i : ctx.state(SEEN).get()) {
                if (i < time + 1) {
                    sum += i;
                } else {
                    later.add(i);
                }
            }
            ctx.emit("[" + start + ") " + ctx.key() + " n=" + ctx.state(PER_BUCKET).get(start) + " sum=" + sum);
            ctx.state(PER_BUCKET).remove(start);
            ctx.state(SEEN).update(later);
        }
    }

    private static void runCheckpointed(Progress progress, CheckpointRecoveryTest.WatchedStore store, CollectSink<String> sink,
                                        int failAfterWrites, SimpleMeterRegistry registry) {
        AtomicBoolean armed = new AtomicBoolean(failAfterWrites > 0);
        Pipeline p = Pipeline.create();
        p.readFrom(new TestPipelines.HeldSource(6_000, 1_000, () -> store.writes.get() >= failAfterWrites))
                .map(i -> {
                    if (armed.get() && store.writes.get() >= failAfterWrites && armed.getAndSet(false)) {
                        throw new IllegalStateException("injected failure");
                    }
                    return i;
                })
                .withTimestamps(i -> i, 0)
                .keyByLong(i -> i % 13)
                .process(new CheckpointedCounter(), PER_BUCKET, SEEN, TOTAL)
                .writeTo(sink);
        p.execute(config(2).batchSize(16).progress(progress).checkpoints(store, 40).meterRegistry(registry));
    }

    @ParameterizedTest(name = "progress={0}")
    @CsvSource({"WATERMARK", "HEWMELD"})
    void a_failed_job_resumes_its_state_and_timers_from_a_checkpoint_exactly_once(Progress progress, @TempDir Path dir) {
        Map<String, Integer> expected = new TreeMap<>();
        Map<String, Long> sums = new TreeMap<>();
        Map<String, Integer> counts = new TreeMap<>();
        for (long i = 0; i < 6_000; i++) {
            String k = "[" + Math.floorDiv(i, BUCKET) * BUCKET + ") " + i % 13;
            counts.merge(k, 1, Integer::sum);
            sums.merge(k, i, Long::sum);
        }
        counts.forEach((k, n) -> expected.put(k + " n=" + n + " sum=" + sums.get(k), 1));
        TestPipelines.failsThenResumesExactlyOnce(dir, (store, sink, failAfter, registry) -> runCheckpointed(progress, store, sink, failAfter,
                registry), expected);
    }

    // ---- misuse, refused naming the call or the stage ----

    private static KeyedStage<String, Event> keyedEvents(Pipeline p, boolean timestamps) {
        Stage<Event> s = p.readFrom(Sources.fromList(List.of(new Event("a", 1, 1), new Event("b", 2, 2))));
        return (timestamps ? s.withTimestamps(Event::time, 0) : s).keyBy(Event::key);
    }

    @Test
    void a_time_to_live_without_timestamps_is_refused_at_the_call() {
        KeyedStage<String, Event> keyed = keyedEvents(Pipeline.create(), false);
        assertThatThrownBy(() -> keyed.process(new TtlProbe(), LAST)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("process(...) at ProcessFunctionTest.java").hasMessageContaining("value 'last' ttl 1000ms")
                .hasMessageContaining("withTimestamps");
    }

    @Test
    void two_states_of_one_name_are_refused_at_the_call() {
        KeyedStage<String, Event> keyed = keyedEvents(Pipeline.create(), true);
        StateDescriptor<ValueState<Long>> again = StateDescriptor.value("counts", Codecs.LONG);
        assertThatThrownBy(() -> keyed.process(new BucketCounter(), COUNTS, again)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("process(...) at ProcessFunctionTest.java").hasMessageContaining("two states are named 'counts'");
    }

    @Test
    void state_without_a_codec_is_checkpointed_through_the_serializer(@TempDir Path dir) {
        Pipeline p = Pipeline.create();
        StateDescriptor<ValueState<Long>> plain = StateDescriptor.value("plain");
        keyedEvents(p, true).process((Event e, ProcessContext<String, String> ctx) -> ctx.state(plain).update(e.value()), plain)
                .writeTo(Sinks.collect());
        assertThatCode(() -> p.execute(config(1).checkpoints(Checkpoints.toDirectory(dir), 100))).doesNotThrowAnyException();
    }

    @Test
    void records_without_a_codec_run_in_cluster_mode_through_the_serializer() {
        List<Transport> net = InJvmTransports.network(1);
        try (Cluster c = Cluster.over(net.get(0), new Cluster.Options(50, 5_000, 20_000))) {
            Pipeline p = Pipeline.create();
            keyedEvents(p, true).process(new BucketCounter(), COUNTS).writeTo(Sinks.collect());
            assertThatCode(() -> p.execute(config(1).cluster(c))).doesNotThrowAnyException();
        }
    }

    @Test
    void a_side_output_of_a_stage_that_is_no_process_is_refused_at_the_call() {
        Stage<Event> plain = Pipeline.create().readFrom(Sources.fromList(List.of(new Event("a", 1, 1))));
        assertThatThrownBy(() -> plain.sideOutput(ODD)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("sideOutput(odd) at ProcessFunctionTest.java").hasMessageContaining("not a process stage");
    }

    @Test
    void an_event_time_timer_without_timestamps_fails_the_job_naming_the_stage() {
        Pipeline p = Pipeline.create();
        keyedEvents(p, false).process(new BucketCounter(), COUNTS).writeTo(Sinks.collect());
        assertThatThrownBy(() -> p.execute(config(1))).isInstanceOf(JobFailedException.class)
                .hasMessageContaining("process@ProcessFunctionTest.java").hasMessageContaining("registerEventTimeTimer")
                .hasMessageContaining("without event timestamps");
    }

    @Test
    void an_undeclared_state_fails_the_job_naming_it() {
        Pipeline p = Pipeline.create();
        keyedEvents(p, true).process(new BucketCounter()).writeTo(Sinks.collect());
        assertThatThrownBy(() -> p.execute(config(1))).isInstanceOf(JobFailedException.class)
                .hasMessageContaining("process@ProcessFunctionTest.java").hasMessageContaining("map 'counts' was not declared");
    }
}
