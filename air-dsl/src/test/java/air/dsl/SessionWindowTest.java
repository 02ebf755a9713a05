package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.channels.InJvmTransports;
import air.channels.Transport;
import air.dsl.TestPipelines.Event;
import air.runtime.Cluster;
import air.runtime.JobConfig;
import air.runtime.api.JoinType;
import air.runtime.api.WindowResult;
import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import air.runtime.sink.CollectSink;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Session windows against a plain batch computation of sessions (sort each key's times, cut where
 * a gap reaches the session gap), with merging, disorder within the allowed bound, 1-3 workers,
 * both progress modes and routings, two in-JVM peers, a checkpoint resume, late records; and the
 * refusals of what session windows do not do.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SessionWindowTest {

    /** The sessions a plain loop finds: "key [start,end) count sum" to 1, one entry per session. */
    static Map<String, Integer> plainSessions(List<Event> events, long gap) {
        Map<String, List<Event>> byKey = new TreeMap<>();
        for (Event e : events) {
            byKey.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e);
        }
        Map<String, Integer> out = new TreeMap<>();
        byKey.forEach((key, list) -> {
            list.sort(Comparator.comparingLong(Event::time));
            int from = 0;
            for (int i = 1; i <= list.size(); i++) {
                // a record exactly one gap after the one before continues the session: windows that touch merge, as in Flink
                if (i == list.size() || list.get(i).time() - list.get(i - 1).time() > gap) {
                    long sum = 0;
                    for (int j = from; j < i; j++) {
                        sum += list.get(j).value();
                    }
                    out.merge(row(key, list.get(from).time(), list.get(i - 1).time() + gap, i - from, sum), 1, Integer::sum);
                    from = i;
                }
            }
        });
        return out;
    }

    static String row(Object key, long start, long end, long count, long sum) {
        return key + " [" + start + "," + end + ") n=" + count + " sum=" + sum;
    }

    /** A run's sessions and the records it dropped as late. */
    record Run(Map<String, Integer> sessions, long late) { }

    static Map<String, Integer> runSessions(List<Event> events, long gap, long disorder, JobConfig config) {
        return run(events, gap, disorder, config, false).sessions();
    }

    /**
     * Each session's count and sum, by two aggregations of one session window stage: the sum by
     * {@code Aggregations.sum}, or ({@code reduce}) by {@code reduce} (no codec: one JVM only).
     */
    static Run run(List<Event> events, long gap, long disorder, JobConfig config, boolean reduce) {
        Pipeline p = Pipeline.create();
        CollectSink<WindowResult<String, Long>> counts = Sinks.collect();
        CollectSink<WindowResult<String, Long>> sums = Sinks.collect();
        WindowedStage<String, Event> sessions = p.readFrom(Sources.fromList(events)).withTimestamps(Event::time, disorder)
                .keyBy(Event::key).window(Windows.session(gap));
        sessions.aggregate(Aggregations.count()).writeTo(counts);
        if (reduce) {
            sessions.reduce((a, b) -> new Event(a.key(), Math.max(a.time(), b.time()), a.value() + b.value()))
                    .map(r -> new WindowResult<>(r.start(), r.end(), r.key(), r.value().value())).writeTo(sums);
        } else {
            sessions.aggregate(Aggregations.sum(Event::value)).writeTo(sums);
        }
        long late = p.execute(config).summary().lateRecords();
        Map<String, Long> sumOf = new TreeMap<>();
        for (WindowResult<String, Long> r : sums.items()) {
            assertThat(sumOf.put(r.key() + " " + r.start() + " " + r.end(), r.value())).as("session summed twice: " + r).isNull();
        }
        Map<String, Integer> out = new TreeMap<>();
        for (WindowResult<String, Long> r : counts.items()) {
            Long sum = sumOf.remove(r.key() + " " + r.start() + " " + r.end());
            assertThat(sum).as("the reduce has the session the count has: " + r).isNotNull();
            out.merge(row(r.key(), r.start(), r.end(), r.value(), sum), 1, Integer::sum);
        }
        assertThat(sumOf).as("sessions only the sum emitted").isEmpty();
        return new Run(out, late);
    }

    /** Events of a few keys with gaps around the session gap, so sessions open, close and merge out of order. */
    static List<Event> sessionEvents(SplittableRandom random, int n, long gap, long disorder, int keys) {
        List<Event> events = new ArrayList<>(n);
        long newest = random.nextInt(1_000) - 500;
        for (int i = 0; i < n; i++) {
            int step = random.nextInt(10);
            newest += step < 6 ? random.nextInt(5) : step < 9 ? random.nextLong(gap / 2) : gap / 2 + random.nextLong(2 * gap);
            long t = newest - (disorder == 0 ? 0 : random.nextLong(disorder + 1));
            events.add(new Event("k" + random.nextInt(keys), t, 1 + random.nextInt(9)));
        }
        return events;
    }

    @ParameterizedTest(name = "seed={0} workers={1} progress={2} routing={3}")
    @CsvSource({"1,1,WATERMARK,KEY", "2,2,WATERMARK,AIR", "3,3,WATERMARK,KEY", "4,1,HEWMELD,AIR", "5,2,HEWMELD,KEY", "6,3,HEWMELD,AIR",
        "7,2,WATERMARK,KEY", "8,3,HEWMELD,KEY"})
    void sessions_equal_a_plain_batch_computation(long seed, int workers, Progress progress, Routing routing) {
        SplittableRandom random = new SplittableRandom(seed);
        long gap = 20 + random.nextInt(300);
        long disorder = random.nextInt(3) == 0 ? 0 : 1 + random.nextLong(2 * gap); // beyond the gap: bridging records come late
        List<Event> events = sessionEvents(random, 1_500 + random.nextInt(1_000), gap, disorder, 1 + random.nextInt(6));
        Map<String, Integer> expected = plainSessions(events, gap);
        assertThat(expected.size()).as("many sessions").isGreaterThan(20);
        Run got = run(events, gap, disorder, config(workers).batchSize(1 + random.nextInt(8)).progress(progress).routing(routing), false);
        assertThat(got.sessions()).isEqualTo(expected);
        assertThat(got.late()).as("disorder within the bound: nothing late").isZero();
    }

    @Test
    void a_record_that_bridges_two_sessions_merges_them() {
        // a@0 and a@3000 are two sessions of gap 2000 until a@1500 (late by 1500, within the disorder) bridges them
        List<Event> events = List.of(new Event("a", 0, 1), new Event("b", 100, 1), new Event("a", 3_000, 2), new Event("a", 1_500, 4),
                new Event("b", 2_099, 16), new Event("b", 4_099, 32), new Event("a", 9_000, 8));
        // b@4099 comes exactly one gap after b@2099: it continues b's session
        Map<String, Integer> expected = Map.of(row("a", 0, 5_000, 3, 7), 1, row("a", 9_000, 11_000, 1, 8), 1, row("b", 100, 6_099, 3, 49), 1);
        assertThat(plainSessions(events, 2_000)).isEqualTo(expected);
        for (Progress progress : Progress.values()) {
            assertThat(run(events, 2_000, 2_000, config(1).batchSize(1).progress(progress), true).sessions()).as(progress.name())
                    .isEqualTo(expected);
        }
    }

    /**
     * Sessions that touch merge, as Flink's {@code EventTimeSessionWindows.withGap} does and as the
     * DSL documents: {@code a@0} and {@code a@10000} under a gap of 10 s are one session
     * {@code [0, 20000)} of 2 (before: {@code [0,10000)=1} and {@code [10000,20000)=1}); one
     * millisecond more apart they are two.
     */
    @Test
    void a_record_exactly_one_gap_after_the_last_continues_the_session() {
        List<Event> events = List.of(new Event("a", 0, 1), new Event("b", 0, 4), new Event("a", 10_000, 2), new Event("b", 10_001, 8));
        Map<String, Integer> expected = Map.of(row("a", 0, 20_000, 2, 3), 1, row("b", 0, 10_000, 1, 4), 1, row("b", 10_001, 20_001, 1, 8), 1);
        assertThat(plainSessions(events, 10_000)).isEqualTo(expected);
        for (Progress progress : Progress.values()) {
            for (int workers = 1; workers <= 2; workers++) {
                Run got = run(events, 10_000, 0, config(workers).batchSize(1).progress(progress), false);
                assertThat(got.late()).as("in order: nothing late").isZero();
                assertThat(got.sessions()).as(progress + " workers=" + workers).isEqualTo(expected);
            }
        }
    }

    @ParameterizedTest(name = "progress={0}")
    @CsvSource({"WATERMARK", "HEWMELD"})
    void two_in_jvm_peers_find_the_sessions_of_a_plain_loop(Progress progress) throws Exception {
        SplittableRandom random = new SplittableRandom(17);
        List<Event> events = sessionEvents(random, 2_500, 150, 100, 9);
        List<Transport> net = InJvmTransports.network(2);
        List<CompletableFuture<Map<String, Integer>>> parts = new ArrayList<>();
        for (Transport t : net) {
            parts.add(CompletableFuture.supplyAsync(() -> {
                try (Cluster c = Cluster.over(t, new Cluster.Options(50, 5_000, 20_000))) {
                    return runSessions(events, 150, 100, config(2).progress(progress).cluster(c));
                }
            }, r -> Thread.ofPlatform().start(r)));
        }
        Map<String, Integer> all = new TreeMap<>();
        for (CompletableFuture<Map<String, Integer>> part : parts) {
            part.get(60, TimeUnit.SECONDS).forEach((k, v) -> all.merge(k, v, Integer::sum));
        }
        assertThat(all).isEqualTo(plainSessions(events, 150));
    }

    @Test
    void records_behind_progress_are_late_dropped_and_counted() {
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            events.add(new Event("a", i * 10L, 1));
        }
        events.add(new Event("a", 5, 100)); // far behind the newest time (1990) with no disorder allowed: late
        Run got = run(events, 50, 0, config(1).batchSize(1), false);
        assertThat(got.sessions()).isEqualTo(plainSessions(events.subList(0, 200), 50));
        assertThat(got.late()).as("dropped by each of the two aggregations' partial halves").isEqualTo(2);
    }

    @Test
    void explain_says_sessions_route_by_key_even_in_an_air_routed_job() {
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.fromList(List.of(new Event("a", 1, 1)))).withTimestamps(Event::time, 0).keyBy(Event::key)
                .window(Windows.session(5_000)).aggregate(Aggregations.count()).writeTo(Sinks.collect());
        String plan = p.explain(JobConfig.defaults().routing(Routing.AIR));
        assertThat(plan).contains("sessions gap 5000ms (routed by key)").contains("routing=KEY").doesNotContain("routing=AIR");
    }

    // ---- checkpoints: open sessions restored exactly ----

    /** Record i's time: blocks of 500 records one ms apart, 5 s between blocks, so each key has a session per block. */
    static long timeOf(long i) {
        return i + i / 500 * 5_000;
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
                .withTimestamps(SessionWindowTest::timeOf, 0)
                .keyByLong(i -> i % 13)
                .window(Windows.session(1_000))
                .aggregate(Aggregations.sum(i -> i))
                .map(r -> r.key() + " [" + r.start() + "," + r.end() + ") " + r.value())
                .writeTo(sink);
        p.execute(config(2).batchSize(16).progress(progress).checkpoints(store, 40).meterRegistry(registry));
    }

    @ParameterizedTest(name = "progress={0}")
    @CsvSource({"WATERMARK", "HEWMELD"})
    void a_failed_job_resumes_its_open_sessions_from_a_checkpoint_exactly_once(Progress progress, @TempDir Path dir) {
        Map<String, Integer> expected = new TreeMap<>();
        for (long block = 0; block < 12; block++) {
            for (long k = 0; k < 13; k++) {
                long first = -1;
                long last = 0;
                long sum = 0;
                for (long i = block * 500; i < block * 500 + 500; i++) {
                    if (i % 13 == k) {
                        first = first < 0 ? i : first;
                        last = i;
                        sum += i;
                    }
                }
                expected.put(k + " [" + timeOf(first) + "," + (timeOf(last) + 1_000) + ") " + sum, 1);
            }
        }
        TestPipelines.failsThenResumesExactlyOnce(dir, (store, sink, failAfter, registry) -> runCheckpointed(progress, store, sink, failAfter,
                registry), expected);
    }

    // ---- refusals, naming the call ----

    private static KeyedStage<String, Event> keyed(Pipeline p, boolean timestamps) {
        Stage<Event> s = p.readFrom(Sources.fromList(List.of(new Event("a", 1, 1))));
        return (timestamps ? s.withTimestamps(Event::time, 0) : s).keyBy(Event::key);
    }

    @Test
    void a_gap_below_one_ms_is_refused_at_the_call() {
        assertThatThrownBy(() -> Windows.session(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Windows.session(gapMs)").hasMessageContaining("was 0");
        assertThatThrownBy(() -> Windows.session(-5)).hasMessageContaining("was -5");
    }

    @Test
    void session_windows_without_timestamps_are_refused_at_the_call() {
        KeyedStage<String, Event> k = keyed(Pipeline.create(), false);
        assertThatThrownBy(() -> k.window(Windows.session(100))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("window(session(100ms)) at SessionWindowTest.java").hasMessageContaining("withTimestamps");
    }

    @Test
    void a_top_k_a_join_or_a_late_record_sink_over_sessions_is_refused_at_the_call() {
        Pipeline p = Pipeline.create();
        WindowedStage<String, Event> sessions = keyed(p, true).window(Windows.session(100));
        WindowedStage<String, Event> tumbling = keyed(p, true).window(Windows.tumbling(100));
        assertThatThrownBy(() -> sessions.topK(3, Aggregations.count())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("topK(3, op, comparator) at SessionWindowTest.java").hasMessageContaining("session(100ms)");
        assertThatThrownBy(() -> sessions.join(tumbling, Aggregations.count(), Aggregations.count(), (k, a, b) -> a))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("join(other, leftOp, rightOp, INNER, joinFn) at")
                .hasMessageContaining("not over session(100ms) windows");
        assertThatThrownBy(() -> tumbling.join(sessions, Aggregations.count(), Aggregations.count(), (k, a, b) -> a))
                .hasMessageContaining("not over session(100ms) windows");
        assertThatThrownBy(() -> sessions.coGroup(tumbling, JoinType.INNER, (k, a, b) -> a))
                .hasMessageContaining("coGroup(other, INNER, fn) at");
    }

    @Test
    void an_aggregation_without_a_codec_is_checkpointed_through_the_serializer(@TempDir Path dir) {
        Pipeline p = Pipeline.create();
        keyed(p, true).window(Windows.session(100)).aggregate(Aggregations.<Event>toList()).writeTo(Sinks.collect());
        assertThatCode(() -> p.execute(config(1).checkpoints(Checkpoints.toDirectory(dir), 100))).doesNotThrowAnyException();
    }
}
