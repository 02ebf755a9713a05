package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.channels.InJvmTransports;
import air.channels.Transport;
import air.dsl.TestPipelines.Event;
import air.runtime.Cluster;
import air.runtime.Job;
import air.runtime.JobConfig;
import air.runtime.JobFailedException;
import air.runtime.api.WindowDefinition;
import air.runtime.api.WindowTopK;
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
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code topK}: the n best keys per window, against a plain computation over the same seeded input
 * (count every (window, key), sort by count, then key), under both progress modes, tumbling and
 * sliding, with checkpoints and across peers; under a job routed by KEY its own shuffle routes by window.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TopKTest {

    private static final int SEEDS = 15;

    @ParameterizedTest(name = "{0} progress={1}")
    @CsvSource({"tumbling,WATERMARK", "tumbling,HEWMELD", "sliding,WATERMARK", "sliding,HEWMELD"})
    void the_n_keys_with_the_most_records_per_window_equal_the_plain_computation(String kind, Progress progress) {
        for (int seed = 0; seed < SEEDS; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            long slide = 1 + random.nextInt(20);
            WindowDefinition window = kind.equals("tumbling") ? Windows.tumbling(slide) : Windows.sliding(slide * (2 + random.nextInt(4)), slide);
            long disorder = random.nextInt(30);
            List<Event> events = events(random, 50 + random.nextInt(400), disorder);
            int n = 1 + random.nextInt(4);
            int workers = 1 + random.nextInt(3);
            Pipeline p = Pipeline.create();
            CollectSink<WindowTopK<String, Long>> sink = Sinks.collect();
            p.readFrom(Sources.fromList(events)).withTimestamps(Event::time, disorder)
                    .keyBy(Event::key).window(window).topK(n, Aggregations.count()).writeTo(sink);
            p.execute(config(workers).batchSize(1 + random.nextInt(8)).routing(Routing.AIR).progress(progress));
            String where = "seed " + seed + ", " + window + ", n " + n + ", workers " + workers;
            assertThat(collected(sink.items())).as(where).isEqualTo(expected(counts(events, window), n));
        }
    }

    @Test
    void a_comparator_of_its_own_ranks_too_and_meters_count_one_result_per_window() {
        Pipeline p = Pipeline.create();
        CollectSink<WindowTopK<Long, Long>> sink = Sinks.collect();
        p.readFrom(Sources.generate(1000, i -> i)).withTimestamps(i -> i, 0).keyByLong(i -> i % 10).window(Windows.tumbling(100))
                .topK(2, Aggregations.sum(i -> i), Comparator.<Long>reverseOrder()) // the two smallest sums
                .writeTo(sink);
        Job job = p.execute(config(3).routing(Routing.AIR));
        assertThat(collected(sink.items())).hasSize(10).containsEntry("[0,100)", "0=450 1=460").containsEntry("[900,1000)", "0=9450 1=9460");
        assertThat(job.summary().windowResults()).isEqualTo(10);
    }

    @Test
    void under_key_routing_the_top_k_shuffle_routes_by_window_and_the_result_is_the_same() {
        List<List<String>> results = new ArrayList<>();
        for (Routing routing : Routing.values()) {
            Pipeline p = Pipeline.create();
            CollectSink<WindowTopK<Long, Long>> sink = Sinks.collect();
            p.readFrom(Sources.generate(1_000, i -> i)).withTimestamps(i -> i, 0).keyByLong(i -> (i * 7) % 13).window(Windows.tumbling(100))
                    .topK(3, Aggregations.count()).writeTo(sink);
            assertThat(p.explain(config(2).routing(routing))).contains("window-final top 3 of count tumbling(100ms)")
                    .contains("== shuffle 0: vertex 0 -> vertex 1 input 0, AIR");
            p.execute(config(2).routing(routing));
            results.add(sink.items().stream().map(Object::toString).sorted().toList());
        }
        assertThat(results.get(0)).hasSize(10).isEqualTo(results.get(1));
        WindowedStage<Long, Long> windowed = Pipeline.create().readFrom(Sources.generate(10, i -> i)).withTimestamps(i -> i, 0)
                .keyByLong(i -> 0L).window(Windows.tumbling(5));
        assertThatThrownBy(() -> windowed.topK(0, Aggregations.count()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("topK(0, op, comparator) at TopKTest.java:")
                .hasMessageContaining("n must be >= 1, was 0");
    }

    @ParameterizedTest(name = "{0} progress={1}")
    @CsvSource({"tumbling,HEWMELD", "sliding,WATERMARK"})
    void a_failed_job_resumes_from_its_newest_checkpoint_with_each_ranking_once(String kind, Progress progress, @TempDir Path dir) {
        WindowDefinition window = kind.equals("tumbling") ? Windows.tumbling(100) : Windows.sliding(200, 100);
        CheckpointRecoveryTest.WatchedStore store = new CheckpointRecoveryTest.WatchedStore(dir);
        CollectSink<WindowTopK<Long, Long>> sink = Sinks.collect();
        SimpleMeterRegistry first = new SimpleMeterRegistry();
        assertThatThrownBy(() -> runHeld(window, progress, store, sink, 2, first))
                .isInstanceOf(JobFailedException.class).hasMessageContaining("injected failure");
        SimpleMeterRegistry second = new SimpleMeterRegistry();
        runHeld(window, progress, store, sink, 0, second);
        assertThat(second.find("air.recoveries").counter().count()).as("the second run resumed from a checkpoint").isEqualTo(1);
        Map<String, Map<String, Long>> counts = new TreeMap<>();
        TestPipelines.expectedCounts(6_000, 13, window).forEach((windowAndKey, count) -> {
            int space = windowAndKey.indexOf(' ');
            counts.computeIfAbsent(windowAndKey.substring(0, space), w -> new TreeMap<>(Comparator.comparingLong(Long::parseLong)))
                    .put(windowAndKey.substring(space + 1), count);
        });
        assertThat(collected(sink.items())).isEqualTo(expected(counts, 3));
    }

    @Test
    void peers_rank_what_one_jvm_ranks() throws Exception {
        List<Event> events = events(new SplittableRandom(7), 3_000, 10);
        WindowDefinition window = Windows.sliding(60, 20);
        List<Transport> net = InJvmTransports.network(2);
        List<CompletableFuture<List<WindowTopK<String, Long>>>> parts = new ArrayList<>();
        for (Transport t : net) {
            parts.add(CompletableFuture.supplyAsync(() -> {
                try (Cluster c = Cluster.over(t, new Cluster.Options(50, 5_000, 20_000))) {
                    Pipeline p = Pipeline.create();
                    CollectSink<WindowTopK<String, Long>> sink = Sinks.collect();
                    p.readFrom(Sources.fromList(events)).withTimestamps(Event::time, 10).keyBy(Event::key).window(window)
                            .topK(3, Aggregations.count()).writeTo(sink);
                    p.execute(config(2).routing(Routing.AIR).progress(Progress.HEWMELD).cluster(c));
                    return sink.items();
                }
            }, r -> Thread.ofPlatform().start(r)));
        }
        List<WindowTopK<String, Long>> all = new ArrayList<>();
        for (CompletableFuture<List<WindowTopK<String, Long>>> part : parts) {
            all.addAll(part.get(60, TimeUnit.SECONDS));
        }
        assertThat(collected(all)).isEqualTo(expected(counts(events, window), 3));
    }

    /** Sources hold a sixth of the way in until two checkpoints are written; {@code failAfterWrites} > 0 then fails a map once. */
    private static void runHeld(WindowDefinition window, Progress progress, CheckpointRecoveryTest.WatchedStore store,
                                CollectSink<WindowTopK<Long, Long>> sink, int failAfterWrites, SimpleMeterRegistry registry) {
        AtomicBoolean armed = new AtomicBoolean(failAfterWrites > 0);
        Pipeline p = Pipeline.create();
        p.readFrom(new TestPipelines.HeldSource(6_000, 1_000, () -> store.writes.get() >= failAfterWrites))
                .map(i -> {
                    if (armed.get() && store.writes.get() >= failAfterWrites && armed.getAndSet(false)) {
                        throw new IllegalStateException("injected failure");
                    }
                    return i;
                })
                .withTimestamps(i -> i, 0).keyByLong(i -> i % 13).window(window).topK(3, Aggregations.count()).writeTo(sink);
        JobConfig c = config(2).batchSize(16).routing(Routing.AIR).progress(progress).checkpoints(store, 40).meterRegistry(registry);
        p.execute(c);
    }

    private static List<Event> events(SplittableRandom random, int n, long disorder) {
        return TestPipelines.disorderedEvents(random, n, disorder, 8, 1);
    }

    /** The plain computation: "[start,end)" to key to count. */
    private static Map<String, Map<String, Long>> counts(List<Event> events, WindowDefinition window) {
        Map<String, Map<String, Long>> counts = new TreeMap<>();
        for (Event e : events) {
            for (long start = Math.floorDiv(e.time(), window.slide()) * window.slide(); start > e.time() - window.size(); start -= window.slide()) {
                counts.computeIfAbsent("[" + start + "," + (start + window.size()) + ")", w -> new TreeMap<>()).merge(e.key(), 1L, Long::sum);
            }
        }
        return counts;
    }

    /** Per window the n greatest counts, ties by the smaller key, as "key=count key=count". */
    private static Map<String, String> expected(Map<String, Map<String, Long>> counts, int n) {
        Map<String, String> out = new TreeMap<>();
        counts.forEach((w, byKey) -> out.put(w, byKey.entrySet().stream() // byKey iterates keys in order: a stable sort keeps ties so
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(n)
                .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" "))));
        return out;
    }

    /** "[start,end)" to "key=value key=value", each window at most once. */
    private static Map<String, String> collected(List<? extends WindowTopK<?, ?>> items) {
        Map<String, String> out = new TreeMap<>();
        for (WindowTopK<?, ?> t : items) {
            String ranked = t.top().stream().peek(r -> assertThat(r.start() == t.start() && r.end() == t.end()).isTrue())
                    .map(r -> r.key() + "=" + r.value()).collect(Collectors.joining(" "));
            assertThat(out.put("[" + t.start() + "," + t.end() + ")", ranked)).as("window ranked twice: " + t).isNull();
        }
        return out;
    }
}
