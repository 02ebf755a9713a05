package air.dsl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.JobConfig;
import air.runtime.api.PerKeyWindow;
import air.runtime.api.WindowDefinition;
import air.runtime.api.WindowUpdate;
import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import air.runtime.sink.CollectSink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Allowed lateness: the last row per (window, key) equals a batch computation over the records
 * within the lateness, and the records beyond it go to the late side output — the same ones on
 * every layout and progress mode, since the rule depends on each source instance's own input only.
 */
class AllowedLatenessTest {

    static final long DISORDER = 500;
    static final long LATENESS = 2_000;
    static final int KEYS = 7;
    static final long N = 6_000;

    /** Record i's time, drawn from the seed: mostly within the disorder, a quarter late within the lateness, some beyond it. */
    static long timeOf(long seed, long i) {
        SplittableRandom r = new SplittableRandom(seed * 1_000_003L + i);
        long t = i * 10;
        int kind = r.nextInt(100);
        if (kind < 65) {
            return t - r.nextLong(DISORDER);
        }
        if (kind < 90) {
            return t - DISORDER - 1 - r.nextLong(LATENESS);
        }
        return t - DISORDER - LATENESS - r.nextLong(3_000);
    }

    /**
     * The rule, computed plainly per source instance (instance s of P reads s, s + P, ...): a record
     * more than the disorder behind the newest time before it is late; it still counts when the
     * earliest window holding it (ending with its slide-long frame) ends more than the lateness
     * after that bound, else it goes to the late side output.
     */
    static List<Long> expectedDropped(long seed, int workers, WindowDefinition w) {
        List<Long> dropped = new ArrayList<>();
        for (int s = 0; s < workers; s++) {
            long maxSeen = Long.MIN_VALUE;
            for (long i = s; i < N; i += workers) {
                long ts = timeOf(seed, i);
                if (ts > maxSeen) {
                    maxSeen = ts;
                } else if (ts < maxSeen - DISORDER) {
                    long frameEnd = w.frameStart(ts) + w.slide();
                    if (frameEnd + LATENESS <= maxSeen - DISORDER) {
                        dropped.add(i);
                    }
                }
            }
        }
        dropped.sort(null);
        return dropped;
    }

    /** "[start,end) key" to the count of the admitted records, as a batch job computes it. */
    static Map<String, Long> batch(long seed, List<Long> dropped, WindowDefinition w) {
        Map<String, Long> counts = new TreeMap<>();
        TreeSet<Long> out = new TreeSet<>(dropped);
        for (long i = 0; i < N; i++) {
            if (out.contains(i)) {
                continue;
            }
            long ts = timeOf(seed, i);
            for (long end = w.frameStart(ts) + w.slide(); end <= w.frameStart(ts) + w.size(); end += w.slide()) {
                counts.merge("[" + (end - w.size()) + "," + end + ") " + i % KEYS, 1L, Long::sum);
            }
        }
        return counts;
    }

    private record Run(Map<String, Long> last, List<Long> late, long lateRows) { }

    private static Run run(long seed, WindowDefinition w, JobConfig config) {
        Pipeline p = Pipeline.create();
        CollectSink<WindowUpdate<Long, Long>> rows = Sinks.collect();
        CollectSink<Long> late = Sinks.collect();
        p.readFrom(Sources.generate(N, i -> i)).withTimestamps(i -> timeOf(seed, i), DISORDER)
                .keyByLong(i -> i % KEYS).window(w).allowedLateness(Duration.ofMillis(LATENESS)).sideOutputLateRecords(late)
                .aggregate(Aggregations.count()).writeTo(rows);
        p.execute(config.idleTimeoutMs(0));
        Map<String, Long> last = new TreeMap<>();
        Map<String, WindowUpdate.Kind> first = new HashMap<>();
        long lateRows = 0;
        for (WindowUpdate<Long, Long> u : rows.items()) {
            String at = "[" + u.start() + "," + u.end() + ") " + u.key();
            Long before = last.put(at, u.value());
            assertThat(before == null || before < u.value()).as("%s grows with each update: %s after %s", at, u, before).isTrue();
            first.putIfAbsent(at, u.kind());
            lateRows += u.kind() == WindowUpdate.Kind.LATE ? 1 : 0;
            assertThat(u.kind()).as("no early rows without earlyResults").isNotEqualTo(WindowUpdate.Kind.EARLY);
        }
        List<Long> lateIds = new ArrayList<>(late.items());
        lateIds.sort(null);
        return new Run(last, lateIds, lateRows);
    }

    @ParameterizedTest(name = "seed={0} window={1}/{2}")
    @CsvSource({"1, 1000, 1000", "2, 2000, 500", "3, 1000, 1000"})
    void the_last_row_per_window_and_key_is_the_batch_result_over_the_records_within_the_lateness(long seed, long size, long slide) {
        WindowDefinition w = new WindowDefinition(size, slide);
        for (int workers = 1; workers <= 3; workers++) {
            List<Long> dropped = expectedDropped(seed, workers, w);
            Map<String, Long> expected = batch(seed, dropped, w);
            assertThat(dropped).as("some records are beyond the lateness").hasSizeGreaterThan(50);
            for (Progress progress : Progress.values()) {
                for (Routing routing : Routing.values()) {
                    JobConfig config = JobConfig.defaults().name("lateness").workers(workers).batchSize(32).watermarkIntervalMs(0)
                            .progress(progress).routing(routing);
                    Run got = run(seed, w, config);
                    String layout = workers + " worker(s), " + progress + ", " + routing;
                    assertThat(got.late()).as("records beyond the lateness, %s", layout).isEqualTo(dropped);
                    assertThat(got.last()).as("last row per window and key, %s", layout).isEqualTo(expected);
                    assertThat(got.lateRows()).as("records within the lateness updated windows, %s", layout).isPositive();
                }
            }
        }
    }

    @Test
    void explain_shows_the_lateness_and_the_upserts() {
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.generate(10, i -> i)).withTimestamps(i -> i, 0).keyByLong(i -> i % 2).window(Windows.tumbling(100))
                .allowedLateness(Duration.ofSeconds(1)).earlyResults(Duration.ofMillis(500)).aggregate(Aggregations.count())
                .writeTo(Sinks.collect());
        assertThat(p.explain()).contains("upserts of count").contains("lateness=1000ms").contains("early=500ms");
    }

    // ---- refusals, naming the call ----

    private static WindowedStage<Long, Long> windowed(Pipeline p, PerKeyWindow perKey) {
        KeyedStage<Long, Long> k = p.readFrom(Sources.generate(10, i -> i)).withTimestamps(i -> i, 0).keyByLong(i -> i % 2);
        return perKey == null ? k.window(Windows.tumbling(100)) : k.window(perKey);
    }

    @Test
    void wrong_lateness_and_early_results_are_refused_at_the_call() {
        WindowedStage<Long, Long> w = windowed(Pipeline.create(), null);
        assertThatThrownBy(() -> w.allowedLateness(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("allowedLateness(PT-0.001S) at AllowedLatenessTest.java").hasMessageContaining("was PT-0.001S");
        assertThatThrownBy(() -> w.allowedLateness(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("allowedLateness(lateness) at AllowedLatenessTest.java");
        assertThatThrownBy(() -> w.earlyResults(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("earlyResults(PT0S) at AllowedLatenessTest.java").hasMessageContaining("at least 1 ms");
        UpdatingWindowedStage<Long, Long> once = w.allowedLateness(Duration.ofSeconds(1));
        assertThatThrownBy(() -> once.allowedLateness(Duration.ofSeconds(2))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("allowedLateness(PT2S) at AllowedLatenessTest.java").hasMessageContaining("already set to PT1S at")
                .hasMessageContaining("AllowedLatenessTest.java");
        UpdatingWindowedStage<Long, Long> early = once.earlyResults(Duration.ofSeconds(1));
        assertThatThrownBy(() -> early.earlyResults(Duration.ofSeconds(1))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("earlyResults(PT1S) at AllowedLatenessTest.java").hasMessageContaining("already set");
        UpdatingWindowedStage<Long, Long> sunk = early.sideOutputLateRecords(Sinks.collect());
        assertThatThrownBy(() -> sunk.sideOutputLateRecords(Sinks.collect())).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("late records already go to");
    }

    @Test
    void lateness_and_early_results_are_refused_on_session_and_count_windows() {
        WindowedStage<Long, Long> sessions = windowed(Pipeline.create(), Windows.session(100));
        assertThatThrownBy(() -> sessions.allowedLateness(Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("allowedLateness(PT1S) at AllowedLatenessTest.java").hasMessageContaining("not over session(100ms)")
                .hasMessageContaining("not supported for session windows yet");
        assertThatThrownBy(() -> sessions.earlyResults(Duration.ofSeconds(1))).hasMessageContaining("earlyResults(PT1S) at");
        WindowedStage<Long, Long> counts = windowed(Pipeline.create(), Windows.count(5));
        assertThatThrownBy(() -> counts.allowedLateness(Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no lateness to allow");
        assertThatThrownBy(() -> counts.earlyResults(Duration.ofSeconds(1))).hasMessageContaining("no early results");
    }

    @Test
    void late_records_of_session_and_count_windows_reach_the_side_output_as_they_were() {
        for (PerKeyWindow perKey : List.of(Windows.session(50), Windows.count(3))) {
            Pipeline p = Pipeline.create();
            CollectSink<Long> late = Sinks.collect();
            List<Long> input = new ArrayList<>();
            for (long i = 0; i < 300; i++) {
                input.add(i * 10);
            }
            input.add(5L); // far behind the newest time with no disorder allowed: late
            p.readFrom(Sources.fromList(input)).withTimestamps(i -> i, 0).keyByLong(i -> i % 2).window(perKey)
                    .sideOutputLateRecords(late).aggregate(Aggregations.count()).writeTo(Sinks.collect());
            p.execute(JobConfig.defaults().workers(1).batchSize(1).idleTimeoutMs(0));
            assertThat(late.items()).as("late records of %s windows", perKey).containsExactly(5L);
        }
    }
}
