package air.dsl;

import static org.assertj.core.api.Assertions.assertThat;

import air.runtime.JobConfig;
import air.runtime.api.WindowResult;
import air.runtime.plan.Progress;
import air.runtime.sink.CollectSink;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Which records are late is decided by the input and the settings alone: a record more than the
 * allowed disorder behind the newest timestamp its source instance saw before it is late, on every
 * run — not only when a periodic watermark happened to be published in between.
 */
class LatenessTest {

    private static final long DISORDER = 1_000;
    private static final long N = 200_000;

    /**
     * Record i at 10·i ms, except: every 1000th (i ≡ 950) 12 s further back than the disorder
     * allows, every other 100th (i ≡ 50) 50 ms further back, every 100th (i ≡ 70) just within it.
     */
    private static long timeOf(long i) {
        if (i % 1000 == 950) {
            return i * 10 - DISORDER - 12_000;
        }
        if (i % 100 == 50) {
            return i * 10 - DISORDER - 50;
        }
        if (i % 100 == 70) {
            return i * 10 - DISORDER + 5;
        }
        return i * 10;
    }

    private static List<Long> lateOnce(JobConfig config) {
        Pipeline p = Pipeline.create();
        CollectSink<WindowResult<Long, Long>> counts = Sinks.collect();
        CollectSink<Long> late = Sinks.collect();
        p.readFrom(Sources.generate(N, i -> i)).withTimestamps(LatenessTest::timeOf, DISORDER)
                .keyByLong(i -> i % 7).window(Windows.tumbling(5_000)).sideOutputLateRecords(late)
                .aggregate(Aggregations.count()).writeTo(counts);
        p.execute(config);
        long counted = counts.items().stream().mapToLong(WindowResult::value).sum();
        assertThat(counted + late.items().size()).as("every record counted in a window or late").isEqualTo(N);
        return new ArrayList<>(new TreeSet<>(late.items()));
    }

    /**
     * The rule, computed plainly: per source instance (instance s of P reads records s, s + P, ...),
     * a record is late when it is more than the allowed disorder behind the newest timestamp before
     * it. Under low watermarks that is all; hew-meld releases whole epochs (5 s frames here), so a
     * record late by the rule is dropped only when its epoch lies wholly behind that bound.
     */
    private static List<Long> expectedLate(int workers, Progress progress) {
        List<Long> late = new ArrayList<>();
        for (int s = 0; s < workers; s++) {
            long maxSeen = Long.MIN_VALUE;
            for (long i = s; i < N; i += workers) {
                long ts = timeOf(i);
                if (ts > maxSeen) {
                    maxSeen = ts;
                } else if (ts < maxSeen - DISORDER) {
                    long bound = maxSeen - DISORDER; // everything below it is complete
                    if (progress == Progress.WATERMARK || ts < bound - Math.floorMod(bound, 5_000)) {
                        late.add(i);
                    }
                }
            }
        }
        late.sort(null);
        return late;
    }

    @ParameterizedTest
    @EnumSource(Progress.class)
    void the_same_records_are_late_on_every_run_under_default_settings(Progress progress) {
        for (int workers = 1; workers <= 2; workers++) {
            List<Long> expected = expectedLate(workers, progress);
            assertThat(expected).as("the input has late records").hasSizeGreaterThan(progress == Progress.WATERMARK ? 1_000 : 100);
            for (int run = 0; run < 10; run++) {
                // default watermark interval (200 ms): before the rule, only the few late records that followed a publication were caught
                JobConfig config = JobConfig.defaults().workers(workers).batchSize(256).progress(progress);
                assertThat(lateOnce(config)).as("late records, %d worker(s), run %d", workers, run).isEqualTo(expected);
            }
        }
    }
}
