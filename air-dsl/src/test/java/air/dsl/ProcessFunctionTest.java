package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;

import air.channels.InJvmTransports;
import air.channels.Transport;
import air.dsl.TestPipelines.Event;
import air.runtime.Cluster;
import air.runtime.JobConfig;
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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
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
}
