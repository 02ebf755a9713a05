package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.channels.Channels;
import air.channels.InJvmTransports;
import air.channels.Transport;
import air.dsl.TestPipelines.Event;
import air.runtime.Cluster;
import air.runtime.JobFailedException;
import air.runtime.api.AggregateOp;
import air.runtime.api.Codec;
import air.runtime.api.WindowDefinition;
import air.runtime.api.WindowResult;
import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import air.runtime.sink.CollectSink;
import air.wire.WireIn;
import air.wire.WireOut;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
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

    private static final Codec<Long> LONGS = new Codec<>() {
        @Override public void write(Long value, WireOut out) { out.putLong(value); }
        @Override public Long read(WireIn in) { return in.getLong(); }
    };

    /**
     * Numbers {@code 0 .. n-1} across a rebalance (a record batch a frame), sorted; rank 0 takes
     * them slowly, so that frames from rank 1 wait in its queue. On rank {@code failOn} a map before
     * the exchange throws after 3,000 records, while such frames are queued ({@code failOn} -1: none
     * fails). {@code registry}: the job's meters (null: a private registry).
     */
    private static List<Long> rebalanced(Cluster cluster, long n, int failOn, SimpleMeterRegistry registry) {
        int rank = cluster == null ? 0 : cluster.self();
        AtomicLong seen = new AtomicLong();
        Pipeline p = Pipeline.create();
        CollectSink<Long> sink = Sinks.collect();
        p.readFrom(Sources.fromList(LongStream.range(0, n).boxed().toList()))
                .map(i -> {
                    if (rank == failOn && seen.incrementAndGet() > 3_000) {
                        throw new IllegalStateException("injected failure on peer " + rank);
                    }
                    return i;
                })
                .rebalance(LONGS)
                .map(i -> {
                    if (rank == 0) {
                        LockSupport.parkNanos(20_000);
                    }
                    return i;
                })
                .writeTo(sink);
        p.execute(registry == null ? config(2).cluster(cluster) : config(2).cluster(cluster).meterRegistry(registry));
        return sink.items().stream().sorted().toList();
    }

    /** Every peer's part, merged and sorted. */
    private static List<Long> merged(List<CompletableFuture<List<Long>>> parts) throws Exception {
        List<Long> all = new ArrayList<>();
        for (CompletableFuture<List<Long>> part : parts) {
            all.addAll(part.get(50, TimeUnit.SECONDS));
        }
        return all.stream().sorted().toList();
    }

    @Test
    void a_job_that_failed_leaves_no_frame_for_the_next_job_on_the_same_cluster() throws Exception {
        long n = 20_000;
        List<Long> expected = rebalanced(null, n, -1, null);
        assertThat(expected).hasSize((int) n);
        List<Transport> net = InJvmTransports.network(2);
        List<CompletableFuture<List<Long>>> parts = new ArrayList<>();
        for (Transport t : net) {
            parts.add(CompletableFuture.supplyAsync(() -> {
                try (Cluster c = Cluster.over(t, FAST)) {
                    assertThatThrownBy(() -> rebalanced(c, n, 1, null)).isInstanceOf(JobFailedException.class)
                            .hasMessageContaining("injected failure on peer 1");
                    return rebalanced(c, n, -1, null); // the same plan, on the same channels
                }
            }, r -> Thread.ofPlatform().start(r)));
        }
        List<Long> got = merged(parts);
        assertThat(got).as("%d rows, %d distinct, of %d", got.size(), got.stream().distinct().count(), n).isEqualTo(expected);
    }

    @Test
    void a_frame_of_an_earlier_job_is_dropped_and_counted_not_read_as_the_next_jobs() throws Exception {
        long n = 2_000;
        List<Long> expected = rebalanced(null, n, -1, null);
        List<Transport> net = InJvmTransports.network(2);
        CyclicBarrier between = new CyclicBarrier(3);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        List<CompletableFuture<List<Long>>> parts = new ArrayList<>();
        for (Transport t : net) {
            parts.add(CompletableFuture.supplyAsync(() -> {
                try (Cluster c = Cluster.over(t, FAST)) {
                    assertThat(rebalanced(c, n, -1, null)).isNotEmpty(); // cluster job 1
                    between.await(20, TimeUnit.SECONDS);
                    between.await(20, TimeUnit.SECONDS);
                    return rebalanced(c, n, -1, t.self() == 0 ? registry : null); // cluster job 2
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, r -> Thread.ofPlatform().start(r)));
        }
        between.await(20, TimeUnit.SECONDS);
        // a well-formed frame of cluster job 1 on the rebalance's channel, late: producer 2 (peer 1's first) ends its stream
        // to instance 0 (on peer 0). Read as job 2's, it would end that stream before any of its records came.
        ByteBuffer late = ByteBuffer.allocate(17).putLong(1).put((byte) 3).putInt(0).putInt(2).flip();
        net.get(1).send(0, Channels.data(0), late);
        between.await(20, TimeUnit.SECONDS);
        assertThat(merged(parts)).isEqualTo(expected);
        Counter stale = registry.find("air.shuffle.stale.frames").counter();
        assertThat(stale).isNotNull();
        assertThat(stale.count()).isEqualTo(1.0);
    }

    @Test
    void an_aggregation_without_a_codec_crosses_peers_through_the_serializer() throws Exception {
        List<String> expected = run(null, Routing.KEY, Progress.WATERMARK, Windows.tumbling(100), anyOdd(false)).stream().sorted().toList();
        assertThat(expected).hasSize(7 * 60);
        assertThat(onPeers(2, Routing.KEY, Progress.WATERMARK, Windows.tumbling(100), anyOdd(false))).isEqualTo(expected);
    }
}
