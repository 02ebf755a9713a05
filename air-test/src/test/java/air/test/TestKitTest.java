package air.test;

import static air.test.WindowResultsAssert.assertThatWindows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import air.dsl.Aggregations;
import air.dsl.Pipeline;
import air.dsl.Sinks;
import air.dsl.Windows;
import air.runtime.JobConfig;
import air.runtime.api.Timestamped;
import air.runtime.api.WindowResult;
import air.runtime.sink.CollectSink;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The test kit on a small windowed count: what each helper checks, and that each fails on wrong output. */
class TestKitTest {

    private static final TestEvents<String> EVENTS = TestEvents.<String>create()
            .at(1_000, "a").at(3_000, "b").at(2_000, "a").at(12_000, "a").at(25_000, "b");

    private static List<WindowResult<String, Long>> count(JobConfig config) {
        CollectSink<WindowResult<String, Long>> sink = Sinks.collect();
        Pipeline p = Pipeline.create();
        p.readFrom(EVENTS.source()).withTimestamps(Timestamped::timestamp, 1_000)
                .keyBy(Timestamped::value).window(Windows.tumbling(10_000)).aggregate(Aggregations.count()).writeTo(sink);
        p.execute(config);
        return sink.items();
    }

    @Test
    void window_results_are_asserted_per_window() {
        List<WindowResult<String, Long>> out = count(JobConfig.defaults().workers(2));
        assertThatWindows(out).hasWindows(3);
        assertThatWindows(out).window(0, 10_000).containsOnly(entry("a", 2L), entry("b", 1L));
        assertThatWindows(out).window(10_000, 20_000).containsOnly(entry("a", 1L));
        assertThatWindows(out).window(30_000, 40_000).isEmpty();
        assertThatWindows(out).hasRows("[0,10000) a=2", "[0,10000) b=1", "[10000,20000) a=1", "[20000,30000) b=1");
    }

    @Test
    void wrong_window_results_fail_saying_which_window() {
        List<WindowResult<String, Long>> twice = List.of(new WindowResult<>(0, 10, "a", 1L), new WindowResult<>(0, 10, "a", 2L));
        assertThatThrownBy(() -> assertThatWindows(twice).hasWindows(1)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("window [0, 10) emitted key a twice");
        List<WindowResult<String, Long>> one = List.of(new WindowResult<>(0, 10, "a", 1L));
        assertThatThrownBy(() -> assertThatWindows(one).hasWindows(2)).hasMessageContaining("expected 2 windows with results but 1");
        assertThatThrownBy(() -> assertThatWindows(one).window(0, 10).containsOnly(entry("a", 2L))).hasMessageContaining("window [0, 10)");
        assertThatThrownBy(() -> assertThatWindows(one).window(0, 20)).hasMessageContaining("ends at 10, not 20");
        assertThatThrownBy(() -> assertThatWindows(one).hasRows("[0,10) a=2")).isInstanceOf(AssertionError.class);
    }

    @Test
    void a_job_gives_the_same_output_in_every_layout_and_one_that_does_not_is_named() {
        List<String> rows = EveryLayout.sameOutput(JobConfig.defaults(), c -> WindowResultsAssert.rows(count(c)));
        assertThat(rows).containsExactly("[0,10000) a=2", "[0,10000) b=1", "[10000,20000) a=1", "[20000,30000) b=1");
        assertThat(EveryLayout.configs(JobConfig.defaults())).hasSize(12);
        AtomicInteger runs = new AtomicInteger();
        assertThatThrownBy(() -> EveryLayout.sameOutput(JobConfig.defaults(), c -> runs.incrementAndGet() == 3 ? List.of("x") : rows))
                .isInstanceOf(AssertionError.class).hasMessageContaining("workers=1 routing=AIR progress=WATERMARK")
                .hasMessageContaining("extra [x]");
    }

    @Test
    void a_job_gives_the_same_output_on_peers_as_in_one_jvm() {
        List<String> rows = EveryLayout.sameOutputOnPeers(JobConfig.defaults(), c -> WindowResultsAssert.rows(count(c)));
        assertThat(rows).hasSize(4);
    }

    @Test
    void several_peers_in_one_jvm_share_one_job_and_a_failing_peer_is_named() {
        List<List<WindowResult<String, Long>>> parts = InJvmPeers.run(3, cluster -> count(JobConfig.defaults().workers(1).cluster(cluster)));
        List<WindowResult<String, Long>> all = parts.stream().flatMap(List::stream).toList();
        assertThatWindows(all).hasRows("[0,10000) a=2", "[0,10000) b=1", "[10000,20000) a=1", "[20000,30000) b=1");
        assertThatThrownBy(() -> InJvmPeers.run(2, cluster -> {
            if (cluster.self() == 1) {
                throw new IllegalStateException("boom");
            }
            return cluster.peers();
        })).isInstanceOf(AssertionError.class).hasMessageContaining("peer 1 of 2 failed").hasMessageContaining("boom");
    }

    @Test
    void test_events_keep_the_order_they_were_added_in() {
        assertThat(EVENTS.events()).extracting(Timestamped::timestamp).containsExactly(1_000L, 3_000L, 2_000L, 12_000L, 25_000L);
        assertThatThrownBy(() -> TestEvents.create().at(1, null)).hasMessageContaining("value is null");
    }
}
