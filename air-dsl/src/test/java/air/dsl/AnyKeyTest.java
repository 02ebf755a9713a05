package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.channels.InJvmTransports;
import air.channels.Transport;
import air.runtime.Cluster;
import air.runtime.JobFailedException;
import air.runtime.api.AggregateOp;
import air.runtime.api.ProcessContext;
import air.runtime.api.StateDescriptor;
import air.runtime.api.ValueState;
import air.runtime.api.WindowResult;
import air.runtime.sink.CollectSink;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keys and records of any type, without codecs: enum and record keys, records crossing exchanges,
 * accumulators and process state through the serializer, on 2 in-JVM peers and across a checkpoint
 * resume; a key type that cannot be hashed stably refused, naming it and the call.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class AnyKeyTest {

    enum Color { RED, GREEN, BLUE }

    record Shade(Color color, int level) { }

    record Reading(Color color, int level, long time, long value) { }

    /** An accumulator and a state without a codec. */
    static final class Sum {
        long total;
    }

    /** Equal only to itself. */
    static final class Handle {
    }

    /** Custom equality with a cached hash in a plain field: equal keys may differ in their bytes. */
    static final class CachedHash {
        final String name;
        int hash;

        CachedHash(String name) {
            this.name = name;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof CachedHash c && c.name.equals(name);
        }

        @Override
        public int hashCode() {
            if (hash == 0) {
                hash = name.hashCode();
            }
            return hash;
        }
    }

    private static final Cluster.Options FAST = new Cluster.Options(50, 5_000, 20_000);
    private static final List<Reading> READINGS = LongStream.range(0, 3_000)
            .mapToObj(i -> new Reading(Color.values()[(int) (i % 3)], (int) (i % 4), i * 2, i % 11)).toList();

    private static AggregateOp<Reading, Sum, Long> sum() {
        return Aggregations.of("sum", Sum::new, (a, r) -> a.total += r.value(), (a, b) -> a.total += b.total, a -> a.total);
    }

    private static <K> List<String> windowed(Cluster cluster, Function<Reading, K> key) {
        Pipeline p = Pipeline.create();
        CollectSink<WindowResult<K, Long>> sink = Sinks.collect();
        p.readFrom(Sources.fromList(READINGS)).withTimestamps(Reading::time, 0).rebalance().keyBy(key)
                .window(Windows.tumbling(500)).aggregate(sum()).writeTo(sink);
        p.execute(config(2).cluster(cluster));
        return sink.items().stream().map(r -> "[" + r.start() + "," + r.end() + ") " + r.key() + "=" + r.value()).toList();
    }

    private static List<String> processed(Cluster cluster) {
        StateDescriptor<ValueState<Sum>> seen = StateDescriptor.value("seen");
        Pipeline p = Pipeline.create();
        CollectSink<String> sink = Sinks.collect();
        p.readFrom(Sources.fromList(READINGS)).withTimestamps(Reading::time, 0)
                .keyBy(r -> new Shade(r.color(), r.level()), Shade.class)
                .process((Reading r, ProcessContext<Shade, String> ctx) -> {
                    Sum s = ctx.state(seen).value();
                    if (s == null) {
                        s = new Sum();
                    }
                    s.total += r.value();
                    ctx.state(seen).update(s);
                    ctx.emit(ctx.key() + " " + s.total);
                }, seen)
                .writeTo(sink);
        p.execute(config(2).cluster(cluster));
        return sink.items();
    }

    /** Every peer's output together, sorted. */
    private static List<String> onPeers(int peers, Function<Cluster, List<String>> job) throws Exception {
        List<Transport> net = InJvmTransports.network(peers);
        List<CompletableFuture<List<String>>> parts = new ArrayList<>();
        for (Transport t : net) {
            parts.add(CompletableFuture.supplyAsync(() -> {
                try (Cluster c = Cluster.over(t, FAST)) {
                    return job.apply(c);
                }
            }, r -> Thread.ofPlatform().start(r)));
        }
        List<String> all = new ArrayList<>();
        for (CompletableFuture<List<String>> part : parts) {
            List<String> mine = part.get(60, TimeUnit.SECONDS);
            all.addAll(mine);
        }
        return all.stream().sorted().toList();
    }

    @Test
    void an_enum_key_and_records_without_codecs_cross_two_peers() throws Exception {
        List<String> expected = windowed(null, Reading::color).stream().sorted().toList();
        assertThat(expected).hasSize(3 * 12);
        assertThat(onPeers(2, c -> windowed(c, Reading::color))).isEqualTo(expected);
    }

    @Test
    void a_record_key_with_an_enum_inside_crosses_two_peers() throws Exception {
        List<String> expected = windowed(null, r -> new Shade(r.color(), r.level())).stream().sorted().toList();
        assertThat(expected).hasSize(12 * 12);
        assertThat(onPeers(2, c -> windowed(c, r -> new Shade(r.color(), r.level())))).isEqualTo(expected);
    }

    @Test
    void a_process_function_keyed_by_a_record_keeps_state_without_codecs_on_two_peers() throws Exception {
        List<String> expected = processed(null).stream().sorted().toList();
        assertThat(expected).hasSize(READINGS.size());
        assertThat(onPeers(2, AnyKeyTest::processed)).isEqualTo(expected);
    }

    @Test
    void a_record_keyed_job_without_codecs_resumes_from_a_checkpoint_exactly(@TempDir Path dir) {
        CheckpointRecoveryTest.WatchedStore store = new CheckpointRecoveryTest.WatchedStore(dir);
        CollectSink<WindowResult<Shade, Long>> sink = Sinks.collect();
        assertThatThrownBy(() -> resumable(store, sink, 2)).isInstanceOf(JobFailedException.class).hasMessageContaining("injected");
        SimpleMeterRegistry second = new SimpleMeterRegistry();
        resumable(store, sink, 0, second);
        assertThat(second.find("air.recoveries").counter().count()).as("resumed from a checkpoint").isEqualTo(1);
        TreeMap<String, Long> got = new TreeMap<>();
        for (WindowResult<Shade, Long> r : sink.items()) {
            assertThat(got.put("[" + r.start() + ") " + r.key(), r.value())).as("emitted twice: " + r).isNull();
        }
        TreeMap<String, Long> want = new TreeMap<>();
        for (long i = 0; i < N; i++) {
            want.merge("[" + i / 100 * 100 + ") " + shadeOf(i), i % 11, Long::sum);
        }
        assertThat(got).isEqualTo(want);
    }

    private static final long N = 6_000;

    private static Shade shadeOf(long i) {
        return new Shade(Color.values()[(int) (i % 3)], (int) (i % 4));
    }

    private static void resumable(CheckpointRecoveryTest.WatchedStore store, CollectSink<WindowResult<Shade, Long>> sink, int failAfter) {
        resumable(store, sink, failAfter, new SimpleMeterRegistry());
    }

    private static void resumable(CheckpointRecoveryTest.WatchedStore store, CollectSink<WindowResult<Shade, Long>> sink, int failAfter,
                                  SimpleMeterRegistry registry) {
        AtomicBoolean armed = new AtomicBoolean(failAfter > 0);
        Pipeline p = Pipeline.create();
        p.readFrom(new TestPipelines.HeldSource(N, 1_000, () -> store.writes.get() >= failAfter))
                .map(i -> {
                    if (armed.get() && store.writes.get() >= failAfter && armed.getAndSet(false)) {
                        throw new IllegalStateException("injected failure");
                    }
                    return new Reading(shadeOf(i).color(), shadeOf(i).level(), i, i % 11);
                })
                .withTimestamps(Reading::time, 0)
                .keyBy(r -> new Shade(r.color(), r.level()))
                .window(Windows.tumbling(100)).aggregate(sum()).writeTo(sink);
        p.execute(config(2).batchSize(16).checkpoints(store, 40).meterRegistry(registry));
    }

    @Test
    void an_identity_key_type_is_refused_at_the_call_naming_it() {
        Stage<Reading> readings = Pipeline.create().readFrom(Sources.fromList(READINGS));
        assertThatThrownBy(() -> readings.keyBy(r -> new Handle(), Handle.class)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyBy(keyFn, Handle.class) at AnyKeyTest.java:").hasMessageContaining(Handle.class.getName())
                .hasMessageContaining("inherits Object.equals");
    }

    @Test
    void a_key_type_with_custom_equality_and_a_field_that_is_not_final_is_refused_at_the_call_naming_it() {
        Stage<Reading> readings = Pipeline.create().readFrom(Sources.fromList(READINGS));
        assertThatThrownBy(() -> readings.keyBy(r -> new CachedHash(r.color().name()), CachedHash.class))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keyBy(keyFn, CachedHash.class) at AnyKeyTest.java:")
                .hasMessageContaining("field CachedHash.hash is not final");
    }

    @Test
    void an_identity_key_of_an_undeclared_type_fails_the_job_at_its_first_record_naming_the_call() {
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.fromList(READINGS)).withTimestamps(Reading::time, 0).keyBy(r -> new Handle())
                .window(Windows.tumbling(500)).aggregate(sum()).writeTo(Sinks.collect());
        assertThatThrownBy(() -> p.execute(config(1))).isInstanceOf(JobFailedException.class)
                .hasMessageContaining("AnyKeyTest.java:").hasMessageContaining(Handle.class.getName())
                .hasMessageContaining("cannot be hashed stably");
    }
}
