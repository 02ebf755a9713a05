package air.test;

import static org.assertj.core.api.Assertions.assertThat;

import air.dsl.Aggregations;
import air.dsl.Pipeline;
import air.dsl.Windows;
import air.runtime.JobConfig;
import air.runtime.JobSummary;
import air.runtime.api.WindowUpdate;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Early results, step by step: a long window emits its running value as {@code EARLY} rows each
 * time processing time (the driver's manual clock) moves by the interval after it changed, then
 * its {@code ON_TIME} row when event time passes its end, then a {@code LATE} row for a record
 * admitted within the allowed lateness. Nothing here depends on the machine's clock: the early
 * rows are due only when the test moves the manual clock, and the test waits for them to be written.
 */
class EarlyResultsTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    private static String row(WindowUpdate<String, Long> u) {
        return u.kind() + " [" + u.start() + "," + u.end() + ") " + u.key() + "=" + u.value();
    }

    /** The rows written after the first {@code seen}, once there are {@code count} of them. */
    private static List<String> next(TestDriverOutput<WindowUpdate<String, Long>> out, int seen, int count) {
        List<WindowUpdate<String, Long>> all = out.awaitWritten(seen + count, WAIT);
        return all.subList(seen, all.size()).stream().map(EarlyResultsTest::row).toList();
    }

    @Test
    void a_long_window_shows_its_running_value_early_then_on_time_then_late() {
        for (int workers = 1; workers <= 2; workers++) {
            try (TestDriver driver = TestDriver.create()) {
                TestDriverInput<String> words = driver.input("words", 0);
                TestDriverOutput<WindowUpdate<String, Long>> counts = driver.output("counts");
                Pipeline p = Pipeline.create();
                words.readFrom(p).keyBy(w -> w).window(Windows.tumbling(60_000)).allowedLateness(Duration.ofSeconds(30))
                        .earlyResults(Duration.ofSeconds(10)).aggregate(Aggregations.count()).writeTo(counts);
                // no idleness: processing time moves only the early rows, never event time
                driver.start(p, JobConfig.defaults().workers(workers).idleTimeoutMs(0));
                String layout = workers + " worker(s)";

                words.send(1_000, "a").send(2_000, "a").send(3_000, "b");
                driver.advanceProcessingTime(Duration.ofSeconds(9));
                assertThat(counts.items()).as("%s: 9 s after the change, no early row yet", layout).isEmpty();
                driver.advanceProcessingTime(Duration.ofSeconds(1));
                assertThat(next(counts, 0, 2)).as(layout).containsExactlyInAnyOrder("EARLY [0,60000) a=2", "EARLY [0,60000) b=1");

                driver.advanceProcessingTime(Duration.ofSeconds(10));
                words.send(20_000, "a").send(40_000, "c");
                driver.advanceProcessingTime(Duration.ofSeconds(10));
                assertThat(next(counts, 2, 3)).as("%s: unchanged for 10 s, then changed: one set of early rows", layout)
                        .containsExactlyInAnyOrder("EARLY [0,60000) a=3", "EARLY [0,60000) b=1", "EARLY [0,60000) c=1");

                driver.advanceEventTime(60_000);
                assertThat(next(counts, 5, 3)).as(layout)
                        .containsExactlyInAnyOrder("ON_TIME [0,60000) a=3", "ON_TIME [0,60000) b=1", "ON_TIME [0,60000) c=1");

                words.send(30_000, "b"); // 30 s behind event time: late, but within the allowed lateness
                driver.settle();
                assertThat(next(counts, 8, 1)).as(layout).containsExactly("LATE [0,60000) b=2");

                driver.advanceEventTime(90_000); // the window's state is freed
                words.send(50_000, "a"); // too late now: dropped and counted
                driver.advanceProcessingTime(Duration.ofSeconds(10));
                JobSummary summary = driver.finish();
                assertThat(summary.lateRecords()).as(layout).isEqualTo(1);
                assertThat(counts.items()).as("%s: nothing after the late row", layout).hasSize(9);
            }
        }
    }
}
