package air.test;

import static air.test.ProgressAssert.assertThatFirings;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.dsl.Aggregations;
import air.dsl.Pipeline;
import air.dsl.Sources;
import air.dsl.Stage;
import air.dsl.Windows;
import air.runtime.JobConfig;
import air.runtime.JobFailedException;
import air.runtime.JobSummary;
import air.runtime.api.WindowResult;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The step-by-step test driver: windows fire exactly when a test moves event time, idleness exactly when it moves processing time. */
class TestDriverTest {

    /** A word count per 10 s window over a driver input, and where it writes. */
    private record WordCount(Pipeline pipeline, TestDriverOutput<WindowResult<String, Long>> counts) {

        static WordCount over(TestDriver driver, TestDriverInput<String> words) {
            TestDriverOutput<WindowResult<String, Long>> counts = driver.output("counts");
            Pipeline p = Pipeline.create();
            words.readFrom(p).keyBy(w -> w).window(Windows.tumbling(10_000)).aggregate(Aggregations.count()).writeTo(counts);
            return new WordCount(p, counts);
        }
    }

    @Test
    void a_window_fires_when_event_time_reaches_its_end_and_not_before_in_every_layout() {
        for (JobConfig config : EveryLayout.configs(JobConfig.defaults())) {
            try (TestDriver driver = TestDriver.create()) {
                TestDriverInput<String> words = driver.input("words", 0);
                WordCount job = WordCount.over(driver, words);
                TestDriverOutput<WindowResult<String, Long>> counts = job.counts();
                driver.start(job.pipeline(), config);
                words.send(1_000, "a").send(4_000, "b").send(9_999, "a");
                driver.advanceEventTime(9_999);
                assertThat(counts.readAll()).as("%s: window [0, 10 s) open at 9 999", config).isEmpty();
                driver.advanceEventTime(10_000);
                assertThat(WindowResultsAssert.rows(counts.readAll())).as("%s", config).containsExactly("[0,10000) a=2", "[0,10000) b=1");
                assertThatFirings(counts).windowFiredOnceBy(0, 10_000, 10_000);
                words.send(15_000, "c");
                driver.advanceEventTime(35_000);
                assertThatFirings(counts).windowFiredOnceBy(10_000, 20_000, 35_000).nothingFiredBefore(10_000);
                JobSummary summary = driver.finish();
                assertThat(summary.windowResults()).as("%s", config).isEqualTo(3);
            }
        }
    }

    @Test
    void records_behind_event_time_are_late_the_same_ones_every_run() {
        for (int run = 0; run < 3; run++) {
            try (TestDriver driver = TestDriver.create()) {
                TestDriverInput<String> words = driver.input("words", 2_000);
                WordCount job = WordCount.over(driver, words);
                TestDriverOutput<WindowResult<String, Long>> counts = job.counts();
                driver.start(job.pipeline(), JobConfig.defaults().workers(2));
                words.send(1_000, "a");
                driver.advanceEventTime(10_000);
                words.send(9_000, "late").send(12_500, "on-time");
                words.send(7_999, "late too");
                driver.advanceEventTime(20_000);
                JobSummary summary = driver.finish();
                assertThat(summary.lateRecords()).as("run %d", run).isEqualTo(2);
                assertThat(WindowResultsAssert.rows(counts.items())).containsExactly("[0,10000) a=1", "[10000,20000) on-time=1");
            }
        }
    }

    @Test
    void an_idle_source_moves_event_time_with_the_manual_clock_exactly() {
        try (TestDriver driver = TestDriver.create()) {
            TestDriverInput<String> words = driver.input("words", 0);
            TestDriverOutput<WindowResult<String, Long>> counts = driver.output("counts");
            TestDriverOutput<String> passed = driver.output("passed");
            Pipeline p = Pipeline.create();
            Stage<String> in = words.readFrom(p);
            in.keyBy(w -> w).window(Windows.tumbling(10_000)).aggregate(Aggregations.count()).writeTo(counts);
            in.writeTo(passed);
            driver.start(p, JobConfig.defaults().workers(2).idleTimeoutMs(1_000));
            words.send(1_000, "a");
            driver.advanceProcessingTime(Duration.ofMillis(500)); // below the idle timeout: nothing moves
            assertThat(counts.firings()).isEmpty();
            driver.advanceProcessingTime(Duration.ofMillis(19_500));
            // idle since the record, 20 s of processing time later: event time 1 000 + 20 000 at every instance
            assertThat(passed.progress()).isEqualTo(21_000);
            assertThat(passed.items()).containsExactly("a");
            // the window's output moves a whole frame at a time: to 20 000
            assertThatFirings(counts).windowFiredOnceBy(0, 10_000, 21_000).firedAt(20_000).hasSize(1);
            assertThat(driver.clock().currentTimeMillis()).isEqualTo(20_000);
        }
    }

    @Test
    void a_failure_in_a_step_is_thrown_by_that_step_naming_the_operator() {
        try (TestDriver driver = TestDriver.create().timeout(Duration.ofSeconds(20))) {
            TestDriverInput<String> words = driver.input("words", 0);
            TestDriverOutput<String> out = driver.output("out");
            Pipeline p = Pipeline.create();
            words.readFrom(p).map(w -> {
                if (w.equals("boom")) {
                    throw new IllegalStateException("no boom here");
                }
                return w;
            }).named("refuse boom").writeTo(out);
            driver.start(p, JobConfig.defaults().workers(1));
            words.send(1, "ok");
            driver.advanceEventTime(2);
            assertThat(out.readAll()).containsExactly("ok");
            words.send(3, "boom");
            assertThatThrownBy(() -> driver.advanceEventTime(4)).isInstanceOf(JobFailedException.class).hasMessageContaining("refuse boom");
        }
    }

    @Test
    void wrong_use_of_the_driver_is_refused_naming_the_call() {
        TestDriver driver = TestDriver.create();
        TestDriverInput<String> words = driver.input("words", 0);
        assertThatThrownBy(() -> words.send(1, "a")).hasMessageContaining("call readFrom(pipeline) first");
        assertThatThrownBy(() -> driver.advanceEventTime(1)).hasMessageContaining("start(pipeline, config) first");
        assertThatThrownBy(() -> TestDriver.create().start(Pipeline.create(), JobConfig.defaults())).hasMessageContaining("no input");
        assertThatThrownBy(() -> driver.input("x", -1)).hasMessageContaining("allowedDisorderMs must be >= 0, was -1");
        try (driver) {
            Pipeline p = Pipeline.create();
            words.readFrom(p).writeTo(driver.<String>output("out"));
            assertThatThrownBy(() -> words.readFrom(Pipeline.create())).hasMessageContaining("already read by a pipeline");
            driver.start(p, JobConfig.defaults().workers(1));
            assertThatThrownBy(() -> driver.output("late")).hasMessageContaining("has started");
            driver.advanceEventTime(100);
            assertThatThrownBy(() -> driver.advanceEventTime(99)).hasMessageContaining("never goes back");
        }
    }

    @Test
    void progress_assertions_fail_on_a_window_that_fired_early_twice_or_never() {
        TestDriverOutput<WindowResult<String, Long>> out = new TestDriverOutput<>("fake");
        var w = out.open(0, 1);
        w.write(new WindowResult<>(0, 10_000, "a", 1L));
        w.onProgress(5_000); // fired before its end: a progress bug
        w.write(new WindowResult<>(10_000, 20_000, "a", 1L));
        w.write(new WindowResult<>(10_000, 20_000, "a", 2L));
        w.onProgress(20_000);
        assertThatThrownBy(() -> assertThatFirings(out).windowFiredOnceBy(0, 10_000, 10_000))
                .hasMessageContaining("window [0, 10000) fired at event time [5000], expected from 10000 to 10000");
        assertThatThrownBy(() -> assertThatFirings(out).windowFiredOnceBy(10_000, 20_000, 20_000)).hasMessageContaining("fired key a twice");
        assertThatThrownBy(() -> assertThatFirings(out).windowFiredOnceBy(20_000, 30_000, 30_000)).hasMessageContaining("has not fired");
        assertThatThrownBy(() -> assertThatFirings(out).nothingFiredBefore(10_000)).hasMessageContaining("fired at 5000");
        assertThatFirings(out).firedAt(20_000).hasSize(2);
        assertThat(out.progress()).isEqualTo(20_000);
    }

    @Test
    void the_manual_clock_moves_only_forward_and_only_when_told() {
        ManualClock clock = ManualClock.startingAt(1_000);
        assertThat(clock.currentTimeMillis()).isEqualTo(1_000);
        assertThat(clock.advance(Duration.ofMillis(250)).currentTimeMillis()).isEqualTo(1_250);
        assertThat(clock.nanoTime()).isEqualTo(250_000_000L);
        assertThatThrownBy(() -> clock.advance(Duration.ofMillis(-1))).hasMessageContaining("never goes back");
        assertThat(List.of(clock.toString())).containsExactly("manual clock at 1250 ms");
    }

    @Test
    void records_that_need_no_progress_are_read_after_settle_even_when_no_progress_follows_them() {
        try (TestDriver driver = TestDriver.create()) {
            TestDriverInput<String> words = driver.input("words", 0);
            TestDriverOutput<String> out = driver.output("out");
            Pipeline p = Pipeline.create();
            words.readFrom(p).map(String::toUpperCase).writeTo(out);
            driver.start(p, JobConfig.defaults().workers(2));
            words.send(5, "x");
            assertThat(driver.settle().job().quiescent()).isTrue();
            assertThat(out.readAll()).containsExactly("X");
            words.send(5, "z"); // the newest time does not move: no watermark follows it
            driver.settle();
            assertThat(out.readAll()).containsExactly("Z");
            assertThat(out.items()).containsExactly("X", "Z");
        }
    }

    @Test
    void checkpoints_and_inputs_of_another_pipeline_are_refused_at_start() {
        try (TestDriver driver = TestDriver.create()) {
            TestDriverInput<String> words = driver.input("words", 0);
            TestDriverOutput<String> out = driver.output("out");
            words.readFrom(Pipeline.create()).writeTo(out);
            Pipeline other = Pipeline.create();
            other.readFrom(Sources.of("a")).writeTo(out);
            assertThatThrownBy(() -> driver.start(other, JobConfig.defaults().workers(1))).hasMessageContaining("input 'words' is read by another");
            assertThatThrownBy(() -> driver.start(other, JobConfig.defaults().replication(1, 100)))
                    .hasMessageContaining("not checkpointed sinks");
        }
    }
}

