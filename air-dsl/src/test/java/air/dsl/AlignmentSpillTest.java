package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.JobConfig;
import air.runtime.JobFailedException;
import air.runtime.api.Codec;
import air.runtime.api.WindowDefinition;
import air.runtime.api.WindowResult;
import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import air.runtime.sink.CollectSink;
import air.wire.WireIn;
import air.wire.WireOut;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Barrier alignment with no memory at all ({@code alignmentBufferBytes(0)}): every item held for
 * a barrier goes through a spill file, record batches in the exchange's codec (or the serializer)
 * and window partials in the aggregation's, and a job that fails and resumes from its checkpoints
 * still counts every record exactly once.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AlignmentSpillTest {

    private static final long N = 6_000;
    private static final long HOLD_AT = 1_000;

    private static final Codec<Long> LONGS = new Codec<>() {
        @Override public void write(Long value, WireOut out) { out.putLong(value); }
        @Override public Long read(WireIn in) { return in.getLong(); }
    };

    private static void run(Progress progress, boolean codec, CheckpointRecoveryTest.WatchedStore store,
                            CollectSink<WindowResult<Long, Long>> sink, int failAfterWrites, SimpleMeterRegistry registry) {
        AtomicBoolean armed = new AtomicBoolean(failAfterWrites > 0);
        BooleanSupplier release = () -> store.writes.get() >= failAfterWrites;
        Pipeline p = Pipeline.create();
        Stage<Long> timed = p.readFrom(new TestPipelines.HeldSource(N, HOLD_AT, release))
                .map(i -> {
                    if (armed.get() && store.writes.get() >= failAfterWrites && armed.getAndSet(false)) {
                        throw new IllegalStateException("injected failure");
                    }
                    return i;
                })
                .withTimestamps(i -> i, 0);
        (codec ? timed.rebalance(LONGS) : timed.rebalance())
                .keyByLong(i -> i % 13)
                .window(Windows.tumbling(100))
                .aggregate(Aggregations.count())
                .writeTo(sink);
        JobConfig c = config(3).batchSize(16).routing(Routing.KEY).progress(progress).checkpoints(store, 20).meterRegistry(registry)
                .alignmentBufferBytes(0);
        p.execute(c);
    }

    @ParameterizedTest(name = "progress={0} record codec={1}")
    @CsvSource({"WATERMARK,true", "HEWMELD,false"})
    void a_job_whose_alignment_spills_everything_resumes_exactly_once(Progress progress, boolean codec, @TempDir Path dir) {
        WindowDefinition window = Windows.tumbling(100);
        CheckpointRecoveryTest.WatchedStore store = new CheckpointRecoveryTest.WatchedStore(dir);
        CollectSink<WindowResult<Long, Long>> sink = Sinks.collect();
        assertThatThrownBy(() -> run(progress, codec, store, sink, 2, new SimpleMeterRegistry()))
                .isInstanceOf(JobFailedException.class).hasMessageContaining("injected failure");
        SimpleMeterRegistry second = new SimpleMeterRegistry();
        run(progress, codec, store, sink, 0, second);
        assertThat(second.find("air.recoveries").counter().count()).as("the second run resumed from a checkpoint").isEqualTo(1);
        assertThat(collected(sink.items())).isEqualTo(TestPipelines.expectedCounts(N, 13, window));
    }

    private static Map<String, Long> collected(List<WindowResult<Long, Long>> items) {
        Map<String, Long> out = new TreeMap<>();
        for (WindowResult<Long, Long> r : items) {
            Long before = out.put("[" + r.start() + "," + r.end() + ") " + r.key(), r.value());
            assertThat(before).as("result emitted twice: " + r).isNull();
        }
        return out;
    }
}
