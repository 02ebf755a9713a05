package quickstart;

import static air.test.ProgressAssert.assertThatFirings;
import static air.test.WindowResultsAssert.assertThatWindows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import air.dsl.Pipeline;
import air.dsl.Sinks;
import air.runtime.JobConfig;
import air.runtime.api.WindowResult;
import air.runtime.sink.CollectSink;
import air.test.EveryLayout;
import air.test.InJvmPeers;
import air.test.TestDriver;
import air.test.TestDriverInput;
import air.test.TestDriverOutput;
import air.test.WindowResultsAssert;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Runs each quickstart job with AIR's test kit (dev.air:air-test) and checks every result it emits. */
class QuickstartTest {

    private static List<WindowResult<String, Long>> wordCount(JobConfig config) {
        CollectSink<WindowResult<String, Long>> sink = Sinks.collect();
        WordCount.pipeline(WordCount.sample(), sink).execute(config);
        return sink.items();
    }

    @Test
    void word_count_counts_every_word_once_per_window() {
        List<WindowResult<String, Long>> out = wordCount(JobConfig.defaults().workers(2));
        assertThatWindows(out).hasWindows(3);
        assertThatWindows(out).window(0, 10_000).contains(entry("the", 3L), entry("dog", 2L), entry("sleeps", 1L)).hasSize(9);
        assertThatWindows(out).window(10_000, 20_000).contains(entry("fox", 2L), entry("the", 2L)).hasSize(7);
        assertThatWindows(out).window(20_000, 30_000).containsOnly(entry("quick", 3L));
    }

    @Test
    void word_count_gives_the_same_output_on_every_layout_and_on_two_peers() {
        List<String> rows = EveryLayout.sameOutput(JobConfig.defaults(), c -> WindowResultsAssert.rows(wordCount(c)));
        List<String> onPeers = WindowResultsAssert.rows(InJvmPeers.run(2, cluster -> wordCount(JobConfig.defaults().workers(1)
                .cluster(cluster))).stream().flatMap(List::stream).toList());
        assertThat(onPeers).isEqualTo(rows);
    }

    @Test
    void click_through_joins_views_and_clicks_per_ad_and_minute() {
        for (int workers = 1; workers <= 3; workers++) {
            CollectSink<WindowResult<Long, ClickThrough.Rate>> sink = Sinks.collect();
            ClickThrough.pipeline(ClickThrough.sampleViews(), ClickThrough.sampleClicks(), sink)
                    .execute(JobConfig.defaults().workers(workers));
            assertThatWindows(sink.items()).hasRows("[0,60000) 7=Rate[views=3, clicks=1]", "[0,60000) 8=Rate[views=1, clicks=0]",
                    "[60000,120000) 8=Rate[views=1, clicks=1]");
        }
    }

    @Test
    void unviewed_clicks_alert_once_event_time_has_passed_each_click_in_every_layout() {
        for (JobConfig config : EveryLayout.configs(JobConfig.defaults())) {
            CollectSink<UnviewedClicks.Alert> sink = Sinks.collect();
            UnviewedClicks.pipeline(UnviewedClicks.sample(), sink).execute(config);
            assertThat(sink.items()).as("%s", config).containsExactlyInAnyOrder(new UnviewedClicks.Alert(8, 2_000),
                    new UnviewedClicks.Alert(7, 12_000));
        }
    }

    /** The same job stepped by hand with the test kit's driver: an alert comes out exactly when event time passes its click. */
    @Test
    void unviewed_clicks_step_by_step() {
        try (TestDriver driver = TestDriver.create()) {
            TestDriverInput<UnviewedClicks.AdEvent> events = driver.input("ad events", 1_000);
            TestDriverOutput<UnviewedClicks.Alert> alerts = driver.output("alerts");
            Pipeline p = Pipeline.create();
            UnviewedClicks.alerts(events.readFrom(p)).writeTo(alerts);
            driver.start(p, JobConfig.defaults().workers(2));
            events.send(1_000, new UnviewedClicks.AdEvent(1_000, 7, false)).send(3_000, new UnviewedClicks.AdEvent(3_000, 7, true))
                    .send(2_000, new UnviewedClicks.AdEvent(2_000, 8, true));
            driver.advanceEventTime(2_000);
            assertThat(alerts.readAll()).as("a view of ad 8 may still come: nothing is judged at 2 000").isEmpty();
            events.send(2_500, new UnviewedClicks.AdEvent(2_500, 8, false));   // after the click: no excuse
            driver.advanceEventTime(5_000);
            assertThat(alerts.readAll()).containsExactly(new UnviewedClicks.Alert(8, 2_000));
            events.send(9_000, new UnviewedClicks.AdEvent(9_000, 7, true));    // 8 s after ad 7's view
            driver.advanceEventTime(9_001);
            assertThatFirings(alerts).firedAt(9_001).containsExactly(new UnviewedClicks.Alert(7, 9_000));
            assertThat(driver.finish().lateRecords()).isZero();
        }
    }
}

