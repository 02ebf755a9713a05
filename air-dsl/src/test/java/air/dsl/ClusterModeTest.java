package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;

import air.channels.InJvmTransports;
import air.channels.Transport;
import air.dsl.TestPipelines.Event;
import air.runtime.Cluster;
import air.runtime.api.AggregateOp;
import air.runtime.api.Codec;
import air.runtime.api.WindowDefinition;
import air.runtime.api.WindowResult;
import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import air.runtime.sink.CollectSink;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Pipelines over several in-JVM peers give what one JVM gives: object keys, user codecs, sliding windows. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClusterModeTest {

    private static final Cluster.Options FAST = new Cluster.Options(50, 5_000, 20_000);
    private static final List<Event> EVENTS = LongStream.range(0, 2_000)
            .mapToObj(i -> new Event("k" + (i % 7), i * 3, i % 5)).toList();

    /** Whether any value was odd: a one-byte accumulator, smaller than a key on the wire. */
    static final class AnyOdd {
        boolean seen;
    }

    private static final Codec<AnyOdd> ANY_ODD_CODEC = new Codec<>() {
        @Override public void write(AnyOdd v, WireOut out) { out.putByte(v.seen ? 1 : 0); }
        @Override public AnyOdd read(WireIn in) {
            AnyOdd a = new AnyOdd();
            a.seen = in.getByte() != 0;
            return a;
        }
    };

    private static AggregateOp<Event, AnyOdd, Boolean> anyOdd(boolean withCodec) {
        return withCodec
                ? Aggregations.of("anyOdd", AnyOdd::new, (a, e) -> a.seen |= e.value() % 2 == 1, (a, b) -> a.seen |= b.seen, a -> a.seen,
                        ANY_ODD_CODEC)
                : Aggregations.of("anyOdd", AnyOdd::new, (a, e) -> a.seen |= e.value() % 2 == 1, (a, b) -> a.seen |= b.seen, a -> a.seen);
    }

    private static <R> List<String> run(Cluster cluster, Routing routing, Progress progress, WindowDefinition window,
                                        AggregateOp<? super Event, ?, R> op) {
        Pipeline p = Pipeline.create();
        CollectSink<WindowResult<String, R>> sink = Sinks.collect();
        p.readFrom(Sources.fromList(EVENTS)).withTimestamps(Event::time, 0).keyBy(Event::key).window(window).aggregate(op).writeTo(sink);
        p.execute(config(2).routing(routing).progress(progress).cluster(cluster));
        return sink.items().stream().map(r -> "[" + r.start() + "," + r.end() + ") " + r.key() + "=" + r.value()).toList();
    }

    /** Every peer's results together, sorted. */
    private static <R> List<String> onPeers(int peers, Routing routing, Progress progress, WindowDefinition window,
                                            AggregateOp<? super Event, ?, R> op) throws Exception {
        List<Transport> net = InJvmTransports.network(peers);
        List<CompletableFuture<List<String>>> parts = new ArrayList<>();
        for (Transport t : net) {
            parts.add(CompletableFuture.supplyAsync(() -> {
                try (Cluster c = Cluster.over(t, FAST)) {
                    return run(c, routing, progress, window, op);
                }
            }, r -> Thread.ofPlatform().start(r)));
        }
        List<String> all = new ArrayList<>();
        for (CompletableFuture<List<String>> part : parts) {
            all.addAll(part.get(50, TimeUnit.SECONDS));
        }
        return all.stream().sorted().collect(Collectors.toList());
    }

    @ParameterizedTest(name = "peers={0} routing={1} progress={2}")
    @CsvSource({"2,KEY,WATERMARK", "2,AIR,HEWMELD", "3,KEY,HEWMELD", "3,AIR,WATERMARK"})
    void object_keys_and_a_one_byte_user_accumulator_cross_peers(int peers, Routing routing, Progress progress) throws Exception {
        List<String> expected = run(null, routing, progress, Windows.tumbling(100), anyOdd(true)).stream().sorted().toList();
        assertThat(expected).hasSize(7 * 60);
        assertThat(onPeers(peers, routing, progress, Windows.tumbling(100), anyOdd(true))).isEqualTo(expected);
    }

    @ParameterizedTest(name = "peers={0} routing={1} progress={2}")
    @CsvSource({"2,KEY,WATERMARK", "2,AIR,WATERMARK", "2,KEY,HEWMELD", "2,AIR,HEWMELD", "3,AIR,HEWMELD"})
    void sliding_averages_cross_peers(int peers, Routing routing, Progress progress) throws Exception {
        WindowDefinition sliding = Windows.sliding(300, 100);
        List<String> expected = run(null, routing, Progress.WATERMARK, sliding, Aggregations.average(Event::value)).stream().sorted().toList();
        assertThat(onPeers(peers, routing, progress, sliding, Aggregations.average(Event::value))).isEqualTo(expected);
    }

    @Test
    void an_aggregation_without_a_codec_crosses_peers_through_the_serializer() throws Exception {
        List<String> expected = run(null, Routing.KEY, Progress.WATERMARK, Windows.tumbling(100), anyOdd(false)).stream().sorted().toList();
        assertThat(expected).hasSize(7 * 60);
        assertThat(onPeers(2, Routing.KEY, Progress.WATERMARK, Windows.tumbling(100), anyOdd(false))).isEqualTo(expected);
    }
}
