package air.dsl;

import static org.assertj.core.api.Assertions.assertThat;

import air.channels.InJvmTransports;
import air.channels.Transport;
import air.dsl.TestPipelines.Event;
import air.runtime.Cluster;
import air.runtime.JobConfig;
import air.runtime.api.Codec;
import air.runtime.api.JoinType;
import air.runtime.api.SinkFactory;
import air.runtime.api.SinkWriter;
import air.runtime.api.WindowDefinition;
import air.runtime.api.WindowResult;
import air.runtime.api.WindowValue;
import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import air.runtime.sink.CollectSink;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Dataflows beyond one straight line — unkeyed windows, window joins of every type, merges of two
 * sources, a stream sent to two sinks — under both routings and both progress modes, on 1 to 3
 * workers and 1 to 3 in-JVM peers, on seeded random inputs with disorder inside the allowed
 * bound, each against a plain batch computation of the same input.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DataflowPropertyTest {

    private static final Cluster.Options FAST = new Cluster.Options(50, 5_000, 20_000);
    private static final int SEEDS = 10;

    /** One random case: its input, window, disorder and layout. */
    private record Case(long seed, List<Event> events, List<Event> others, WindowDefinition window, long disorder, int workers,
                        int batch, int peers) {
        String where(Routing routing, Progress progress) {
            return "seed " + seed + ", " + window + ", disorder " + disorder + ", workers " + workers + ", peers " + peers + ", "
                    + routing + "/" + progress;
        }
    }

    private static Case randomCase(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        long slide = 1 + random.nextInt(20);
        WindowDefinition window = random.nextBoolean() ? Windows.tumbling(slide) : Windows.sliding(slide * (1 + random.nextInt(4)), slide);
        long disorder = random.nextInt(30);
        return new Case(seed, events(random, 50 + random.nextInt(300), disorder), events(random, 20 + random.nextInt(200), disorder),
                window, disorder, 1 + random.nextInt(3), 1 + random.nextInt(8), 1 + random.nextInt(3));
    }

    private static List<Event> events(SplittableRandom random, int n, long disorder) {
        return TestPipelines.disorderedEvents(random, n, disorder, 6, 10);
    }

    /** The window starts that hold timestamp {@code t}. */
    private static List<Long> startsOf(long t, WindowDefinition w) {
        List<Long> starts = new ArrayList<>();
        for (long s = Math.floorDiv(t, w.slide()) * w.slide(); s > t - w.size(); s -= w.slide()) {
            starts.add(s);
        }
        return starts;
    }

    private static String window(long start, WindowDefinition w) {
        return "[" + start + "," + (start + w.size()) + ")";
    }

    // ---- unkeyed windows ----

    @Test
    void an_unkeyed_window_equals_the_batch_sum_per_window() throws Exception {
        for (long seed = 0; seed < SEEDS; seed++) {
            Case c = randomCase(seed);
            Map<String, Long> expected = new TreeMap<>();
            for (Event e : c.events()) {
                for (long s : startsOf(e.time(), c.window())) {
                    expected.merge(window(s, c.window()), e.value(), Long::sum);
                }
            }
            for (Routing routing : Routing.values()) {
                for (Progress progress : Progress.values()) {
                    List<List<Object>> out = run(c, routing, progress, p -> {
                        CollectSink<WindowValue<Long>> sink = Sinks.collect();
                        p.readFrom(Sources.fromList(c.events())).withTimestamps(Event::time, c.disorder())
                                .window(c.window()).aggregate(Aggregations.sum(Event::value)).writeTo(sink);
                        return List.of(sink);
                    });
                    Map<String, Long> actual = new TreeMap<>();
                    for (Object o : out.get(0)) {
                        WindowValue<?> v = (WindowValue<?>) o;
                        assertThat(actual.put("[" + v.start() + "," + v.end() + ")", (Long) v.value())).as("duplicate " + v).isNull();
                    }
                    assertThat(actual).as(c.where(routing, progress)).isEqualTo(expected);
                }
            }
        }
    }

    // ---- window joins ----

    /** The batch window join: per window and key, left count and right sum, as the type keeps them. */
    private static Map<String, String> batchJoin(List<Event> left, List<Event> right, WindowDefinition w, JoinType type) {
        Map<String, Long> counts = new TreeMap<>();
        Map<String, Long> sums = new TreeMap<>();
        for (Event e : left) {
            for (long s : startsOf(e.time(), w)) {
                counts.merge(window(s, w) + " " + e.key(), 1L, Long::sum);
            }
        }
        for (Event e : right) {
            for (long s : startsOf(e.time(), w)) {
                sums.merge(window(s, w) + " " + e.key(), e.value(), Long::sum);
            }
        }
        Map<String, String> out = new TreeMap<>();
        for (String k : counts.keySet()) {
            if (sums.containsKey(k) || type.keepsLeftOnly()) {
                out.put(k, counts.get(k) + "/" + (sums.containsKey(k) ? sums.get(k) : "-"));
            }
        }
        if (type.keepsRightOnly()) {
            for (String k : sums.keySet()) {
                out.putIfAbsent(k, "-/" + sums.get(k));
            }
        }
        return out;
    }

    private static Map<String, String> joined(List<Object> results, String where) {
        Map<String, String> out = new TreeMap<>();
        for (Object o : results) {
            WindowResult<?, ?> r = (WindowResult<?, ?>) o;
            assertThat(out.put("[" + r.start() + "," + r.end() + ") " + r.key(), (String) r.value())).as(where + ": duplicate " + r).isNull();
        }
        return out;
    }

    private static String both(String key, Long count, Long sum) {
        return (count == null ? "-" : count) + "/" + (sum == null ? "-" : sum);
    }

    @Test
    void a_window_join_of_two_branches_of_one_source_equals_the_batch_join_for_every_type() throws Exception {
        for (long seed = 0; seed < SEEDS; seed++) {
            Case c = randomCase(100 + seed);
            JoinType type = JoinType.values()[(int) (seed % JoinType.values().length)];
            List<Event> evens = c.events().stream().filter(e -> e.value() % 2 == 0).toList();
            List<Event> odds = c.events().stream().filter(e -> e.value() % 2 == 1).toList();
            Map<String, String> expected = batchJoin(evens, odds, c.window(), type);
            for (Routing routing : Routing.values()) {
                for (Progress progress : Progress.values()) {
                    List<List<Object>> out = run(c, routing, progress, p -> {
                        CollectSink<WindowResult<String, String>> sink = Sinks.collect();
                        Stage<Event> events = p.readFrom(Sources.fromList(c.events())).withTimestamps(Event::time, c.disorder());
                        WindowedStage<String, Event> left = events.filter(e -> e.value() % 2 == 0).keyBy(Event::key).window(c.window());
                        WindowedStage<String, Event> right = events.filter(e -> e.value() % 2 == 1).keyBy(Event::key).window(c.window());
                        left.join(right, Aggregations.count(), Aggregations.sum(Event::value), type, DataflowPropertyTest::both)
                                .writeTo(sink);
                        return List.of(sink);
                    });
                    String where = c.where(routing, progress) + " " + type;
                    assertThat(joined(out.get(0), where)).as(where).isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void a_window_join_of_two_sources_with_long_keys_equals_the_batch_join() throws Exception {
        for (long seed = 0; seed < SEEDS; seed++) {
            Case c = randomCase(200 + seed);
            JoinType type = JoinType.values()[(int) ((seed + 1) % JoinType.values().length)];
            Map<String, String> expected = new TreeMap<>();
            batchJoin(c.events(), c.others(), c.window(), type).forEach((k, v) -> expected.put(k.replace(" k", " "), v));
            for (Routing routing : Routing.values()) {
                for (Progress progress : Progress.values()) {
                    List<List<Object>> out = run(c, routing, progress, p -> {
                        CollectSink<WindowResult<Long, String>> sink = Sinks.collect();
                        WindowedStage<Long, Event> left = p.readFrom(Sources.fromList(c.events())).withTimestamps(Event::time, c.disorder())
                                .keyByLong(e -> Long.parseLong(e.key().substring(1))).window(c.window());
                        WindowedStage<Long, Event> right = p.readFrom(Sources.fromList(c.others()))
                                .withTimestamps(Event::time, c.disorder()).keyByLong(e -> Long.parseLong(e.key().substring(1)))
                                .window(c.window());
                        left.join(right, Aggregations.count(), Aggregations.sum(Event::value), type,
                                (Long k, Long n, Long s) -> both("", n, s)).writeTo(sink);
                        return List.of(sink);
                    });
                    String where = c.where(routing, progress) + " " + type;
                    assertThat(joined(out.get(0), where)).as(where).isEqualTo(expected);
                }
            }
        }
    }

    // ---- interval and lookup joins ----

    /** How test events cross peers and checkpoints in the joins that buffer records. */
    static final Codec<Event> EVENT_CODEC = new Codec<>() {
        @Override
        public void write(Event e, WireOut out) {
            out.putString(e.key()).putLong(e.time()).putLong(e.value());
        }

        @Override
        public Event read(WireIn in) {
            return new Event(in.getString(), in.getLong(), in.getLong());
        }
    };

    @Test
    void an_interval_join_equals_the_batch_pairs() throws Exception {
        for (long seed = 0; seed < SEEDS; seed++) {
            Case c = randomCase(400 + seed);
            SplittableRandom random = new SplittableRandom(seed);
            long lower = random.nextInt(15);
            long upper = random.nextInt(15);
            List<String> expected = new ArrayList<>();
            for (Event b : c.others()) {
                for (Event a : c.events()) {
                    if (a.key().equals(b.key()) && a.time() >= b.time() - lower && a.time() <= b.time() + upper) {
                        expected.add(a + "|" + b);
                    }
                }
            }
            expected.sort(null);
            for (Routing routing : Routing.values()) {
                for (Progress progress : Progress.values()) {
                    List<List<Object>> out = run(c, routing, progress, p -> {
                        CollectSink<String> sink = Sinks.collect();
                        KeyedStage<String, Event> a = p.readFrom(Sources.fromList(c.events())).withTimestamps(Event::time, c.disorder())
                                .keyBy(Event::key);
                        KeyedStage<String, Event> b = p.readFrom(Sources.fromList(c.others())).withTimestamps(Event::time, c.disorder())
                                .keyBy(Event::key);
                        a.intervalJoin(b, lower, upper, (String k, Event x, Event y) -> x + "|" + y, EVENT_CODEC, EVENT_CODEC).writeTo(sink);
                        return List.of(sink);
                    });
                    List<String> actual = out.get(0).stream().map(Object::toString).sorted().toList();
                    assertThat(actual).as(c.where(routing, progress) + " [-" + lower + ", +" + upper + "]").isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void a_lookup_join_sees_the_table_as_of_each_records_event_time() throws Exception {
        for (long seed = 0; seed < SEEDS; seed++) {
            Case c = randomCase(500 + seed);
            JoinType type = seed % 2 == 0 ? JoinType.INNER : JoinType.LEFT;
            // the changelog: one change per (key, time) at most; a value divisible by 4 deletes the key
            Map<String, Event> unique = new LinkedHashMap<>(); // in arrival order: within the disorder bound
            for (Event e : c.others()) {
                unique.putIfAbsent(e.key() + "@" + e.time(), e);
            }
            List<Event> changes = new ArrayList<>(unique.values());
            List<String> expected = new ArrayList<>();
            for (Event r : c.events()) {
                Event latest = null;
                for (Event ch : changes) {
                    if (ch.key().equals(r.key()) && ch.time() <= r.time() && (latest == null || ch.time() > latest.time())) {
                        latest = ch;
                    }
                }
                Long value = latest == null || latest.value() % 4 == 0 ? null : latest.value();
                if (value != null || type == JoinType.LEFT) {
                    expected.add(r + "=" + value);
                }
            }
            expected.sort(null);
            for (Progress progress : Progress.values()) {
                List<List<Object>> out = run(c, Routing.AIR, progress, p -> {
                    CollectSink<String> sink = Sinks.collect();
                    Table<String, Long> table = p.readFrom(Sources.fromList(changes)).withTimestamps(Event::time, c.disorder())
                            .keyBy(Event::key).toTable(e -> e.value() % 4 == 0 ? null : e.value(), EVENT_CODEC);
                    p.readFrom(Sources.fromList(c.events())).withTimestamps(Event::time, c.disorder()).keyBy(Event::key)
                            .lookupJoin(table, type, (String k, Event r, Long v) -> r + "=" + v, EVENT_CODEC).writeTo(sink);
                    return List.of(sink);
                });
                List<String> actual = out.get(0).stream().map(Object::toString).sorted().toList();
                assertThat(actual).as(c.where(Routing.AIR, progress) + " " + type).isEqualTo(expected);
            }
        }
    }

    // ---- exchanges ----

    @Test
    void a_rebalance_keeps_every_record_and_its_time_and_a_broadcast_gives_every_worker_all() throws Exception {
        for (long seed = 0; seed < SEEDS; seed++) {
            Case c = randomCase(600 + seed);
            Map<String, Long> expected = new TreeMap<>();
            for (Event e : c.events()) {
                for (long s : startsOf(e.time(), c.window())) {
                    expected.merge(window(s, c.window()) + " " + e.key(), 1L, Long::sum);
                }
            }
            List<String> once = c.others().stream().map(Event::toString).sorted().toList();
            int instances = c.workers() * c.peers();
            List<String> everywhere = new ArrayList<>();
            for (String e : once) {
                for (int i = 0; i < instances; i++) {
                    everywhere.add(e);
                }
            }
            for (Progress progress : Progress.values()) {
                List<List<Object>> out = run(c, Routing.AIR, progress, p -> {
                    CollectSink<WindowResult<String, Long>> counts = Sinks.collect();
                    CollectSink<Event> spread = Sinks.collect();
                    p.readFrom(Sources.fromList(c.events())).withTimestamps(Event::time, c.disorder()).rebalance(EVENT_CODEC)
                            .map(e -> e).keyBy(Event::key).window(c.window()).aggregate(Aggregations.count()).writeTo(counts);
                    p.readFrom(Sources.fromList(c.others())).broadcast(EVENT_CODEC).writeTo(spread);
                    return List.of(counts, spread);
                });
                Map<String, Long> actual = new TreeMap<>();
                for (Object o : out.get(0)) {
                    WindowResult<?, ?> r = (WindowResult<?, ?>) o;
                    assertThat(actual.put("[" + r.start() + "," + r.end() + ") " + r.key(), (Long) r.value())).isNull();
                }
                assertThat(actual).as(c.where(Routing.AIR, progress) + " rebalance").isEqualTo(expected);
                assertThat(out.get(1).stream().map(Object::toString).sorted().toList()).as(c.where(Routing.AIR, progress) + " broadcast")
                        .isEqualTo(everywhere);
            }
        }
    }

    @Test
    void timestamps_declared_after_a_rebalance_fire_windows_while_the_input_still_runs() {
        // the source holds a third of the way in until a window has fired (or a bound passes, which fails the test)
        AtomicBoolean fired = new AtomicBoolean();
        long bound = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        Pipeline p = Pipeline.create();
        CollectSink<WindowResult<Long, Long>> sink = Sinks.collect();
        p.readFrom(new TestPipelines.HeldSource(3_000, 1_000, () -> fired.get() || System.nanoTime() > bound))
                .rebalance()
                .withTimestamps(i -> i, 0)
                .keyByLong(i -> i % 3)
                .window(Windows.tumbling(100))
                .aggregate(Aggregations.count())
                .map(r -> {
                    fired.set(true);
                    return r;
                })
                .writeTo(sink);
        p.execute(TestPipelines.config(2));
        assertThat(System.nanoTime()).as("a window fired while the source held, not at its end").isLessThan(bound);
        assertThat(sink.items()).hasSize(30 * 3);
    }

    @Test
    void a_late_record_side_output_reached_by_two_paths_numbers_its_writers_apart() {
        List<String> opened = new ArrayList<>();
        SinkFactory<Event> late = new SinkFactory<>() {
            @Override
            public synchronized SinkWriter<Event> open(int instance, int parallelism) {
                opened.add(instance + "/" + parallelism);
                return new SinkWriter<>() {
                    @Override public void write(Event item) { }
                    @Override public void close() { }
                };
            }

            @Override
            public String describe() {
                return "recording-late";
            }
        };
        Pipeline p = Pipeline.create();
        Stage<Event> a = p.readFrom(Sources.of(new Event("a", 1, 1)));
        Stage<Event> b = p.readFrom(Sources.of(new Event("b", 2, 1)));
        a.merge(b).withTimestamps(Event::time, 0).keyBy(Event::key).window(Windows.tumbling(10)).sideOutputLateRecords(late)
                .aggregate(Aggregations.count()).writeTo(Sinks.collect());
        p.execute(TestPipelines.config(2));
        assertThat(opened).containsExactlyInAnyOrder("0/4", "1/4", "2/4", "3/4");
    }

    @Test
    void a_static_lookup_joins_each_record_with_its_value_inner_or_left() {
        Map<String, Long> table = Map.of("k0", 100L, "k1", 200L);
        List<Event> events = List.of(new Event("k0", 1, 1), new Event("k2", 2, 2), new Event("k1", 3, 3));
        for (JoinType type : List.of(JoinType.INNER, JoinType.LEFT)) {
            Pipeline p = Pipeline.create();
            CollectSink<String> sink = Sinks.collect();
            p.readFrom(Sources.fromList(events)).lookup(table, Event::key, type, (Event e, Long v) -> e.key() + "=" + v).writeTo(sink);
            p.execute(TestPipelines.config(2));
            assertThat(sink.items()).as(type.name()).containsExactlyInAnyOrderElementsOf(type == JoinType.INNER
                    ? List.of("k0=100", "k1=200") : List.of("k0=100", "k1=200", "k2=null"));
        }
    }

    // ---- merge, several sources, several sinks ----

    @Test
    void two_merged_sources_count_as_their_union_and_a_second_sink_sees_every_record() throws Exception {
        for (long seed = 0; seed < SEEDS; seed++) {
            Case c = randomCase(300 + seed);
            Map<String, Long> expected = new TreeMap<>();
            List<Event> union = new ArrayList<>(c.events());
            union.addAll(c.others());
            for (Event e : union) {
                for (long s : startsOf(e.time(), c.window())) {
                    expected.merge(window(s, c.window()) + " " + e.key(), 1L, Long::sum);
                }
            }
            List<String> expectedRaw = union.stream().map(Event::toString).sorted().toList();
            for (Routing routing : Routing.values()) {
                for (Progress progress : Progress.values()) {
                    List<List<Object>> out = run(c, routing, progress, p -> {
                        CollectSink<WindowResult<String, Long>> counts = Sinks.collect();
                        CollectSink<Event> raw = Sinks.collect();
                        Stage<Event> a = p.readFrom(Sources.fromList(c.events()));
                        Stage<Event> b = p.readFrom(Sources.fromList(c.others()));
                        Stage<Event> merged = a.merge(b).map(e -> e);
                        merged.writeTo(raw);
                        merged.withTimestamps(Event::time, c.disorder()).keyBy(Event::key).window(c.window())
                                .aggregate(Aggregations.count()).writeTo(counts);
                        return List.of(counts, raw);
                    });
                    Map<String, Long> actual = new TreeMap<>();
                    for (Object o : out.get(0)) {
                        WindowResult<?, ?> r = (WindowResult<?, ?>) o;
                        assertThat(actual.put("[" + r.start() + "," + r.end() + ") " + r.key(), (Long) r.value())).isNull();
                    }
                    assertThat(actual).as(c.where(routing, progress)).isEqualTo(expected);
                    assertThat(out.get(1).stream().map(Object::toString).sorted().toList()).as(c.where(routing, progress))
                            .isEqualTo(expectedRaw);
                }
            }
        }
    }

    // ---- running a case on one JVM or on in-JVM peers ----

    /** Builds the pipeline (once per peer) and returns every sink's items over all peers, sink by sink. */
    private static List<List<Object>> run(Case c, Routing routing, Progress progress,
                                          Function<Pipeline, List<? extends CollectSink<?>>> build) throws Exception {
        JobConfig config = TestPipelines.config(c.workers()).batchSize(c.batch()).routing(routing).progress(progress);
        if (c.peers() == 1) {
            Pipeline p = Pipeline.create();
            List<? extends CollectSink<?>> sinks = build.apply(p);
            p.execute(config);
            return items(sinks);
        }
        List<Transport> net = InJvmTransports.network(c.peers());
        List<CompletableFuture<List<List<Object>>>> parts = new ArrayList<>();
        for (Transport t : net) {
            parts.add(CompletableFuture.supplyAsync(() -> {
                try (Cluster cluster = Cluster.over(t, FAST)) {
                    Pipeline p = Pipeline.create();
                    List<? extends CollectSink<?>> sinks = build.apply(p);
                    p.execute(config.cluster(cluster));
                    return items(sinks);
                }
            }, r -> Thread.ofPlatform().start(r)));
        }
        List<List<Object>> all = new ArrayList<>();
        for (CompletableFuture<List<List<Object>>> part : parts) {
            List<List<Object>> sinks = part.get(60, TimeUnit.SECONDS);
            for (int s = 0; s < sinks.size(); s++) {
                if (all.size() <= s) {
                    all.add(new ArrayList<>());
                }
                all.get(s).addAll(sinks.get(s));
            }
        }
        return all;
    }

    private static List<List<Object>> items(List<? extends CollectSink<?>> sinks) {
        List<List<Object>> out = new ArrayList<>();
        for (CollectSink<?> s : sinks) {
            out.add(new ArrayList<>(s.items()));
        }
        return out;
    }
}
