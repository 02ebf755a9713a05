package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.dsl.TestPipelines.Event;
import air.runtime.api.WindowResult;
import air.runtime.plan.Progress;
import air.runtime.sink.CollectSink;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Count windows: every n records of a key, against a plain loop; short windows dropped at the end. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CountWindowTest {

    record Run(List<WindowResult<String, Long>> counts, List<WindowResult<String, Long>> sums) { }

    static Run run(List<Event> events, long n, int workers, Progress progress) {
        Pipeline p = Pipeline.create();
        CollectSink<WindowResult<String, Long>> counts = Sinks.collect();
        CollectSink<WindowResult<String, Long>> sums = Sinks.collect();
        WindowedStage<String, Event> windows = p.readFrom(Sources.fromList(events)).withTimestamps(Event::time, 0).keyBy(Event::key)
                .window(Windows.count(n));
        windows.aggregate(Aggregations.count()).writeTo(counts);
        windows.aggregate(Aggregations.sum(Event::value)).writeTo(sums);
        p.execute(config(workers).progress(progress));
        return new Run(counts.items(), sums.items());
    }

    /** Records in time order (no disorder: one source instance reads them in order). */
    static List<Event> inOrder(SplittableRandom random, int size, int keys) {
        List<Event> events = new ArrayList<>();
        long t = 0;
        for (int i = 0; i < size; i++) {
            t += random.nextInt(30);
            events.add(new Event("k" + random.nextInt(keys), t, random.nextInt(100)));
        }
        return events;
    }

    @ParameterizedTest(name = "progress={0}")
    @CsvSource({"WATERMARK", "HEWMELD"})
    void one_source_instance_cuts_each_keys_records_in_input_order_as_a_plain_loop_does(Progress progress) {
        List<Event> events = inOrder(new SplittableRandom(3), 2_000, 7);
        long n = 9;
        Map<String, List<Event>> byKey = new TreeMap<>();
        for (Event e : events) {
            byKey.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e);
        }
        Map<String, Long> expected = new TreeMap<>();
        byKey.forEach((key, list) -> {
            for (int from = 0; from + n <= list.size(); from += (int) n) {
                long sum = 0;
                for (int i = from; i < from + n; i++) {
                    sum += list.get(i).value();
                }
                expected.put(key + " [" + list.get(from).time() + "," + (list.get(from + (int) n - 1).time() + 1) + ")", sum);
            }
        });
        Run r = run(events, n, 1, progress);
        assertThat(r.counts()).allSatisfy(w -> assertThat(w.value()).isEqualTo(n));
        Map<String, Long> got = new TreeMap<>();
        for (WindowResult<String, Long> w : r.sums()) {
            assertThat(got.put(w.key() + " [" + w.start() + "," + w.end() + ")", w.value())).as("twice: " + w).isNull();
        }
        assertThat(got).isEqualTo(expected);
        assertThat(events.size() - expected.size() * n).as("records in the short windows the end drops").isPositive();
    }

    @ParameterizedTest(name = "workers={0} progress={1}")
    @CsvSource({"2,WATERMARK", "3,HEWMELD"})
    void several_source_instances_give_windows_of_exactly_n_records_and_drop_only_the_last_short_one(int workers, Progress progress) {
        List<Event> events = inOrder(new SplittableRandom(5), 3_000, 5);
        long n = 13;
        Map<String, Long> perKey = new TreeMap<>();
        for (Event e : events) {
            perKey.merge(e.key(), 1L, Long::sum);
        }
        Run r = run(events, n, workers, progress);
        assertThat(r.counts()).allSatisfy(w -> assertThat(w.value()).isEqualTo(n));
        Map<String, Long> windows = new TreeMap<>();
        for (WindowResult<String, Long> w : r.counts()) {
            windows.merge(w.key(), 1L, Long::sum);
        }
        Map<String, Long> expected = new TreeMap<>();
        perKey.forEach((k, c) -> {
            if (c / n > 0) {
                expected.put(k, c / n);
            }
        });
        assertThat(windows).isEqualTo(expected);
    }

    @Test
    void fewer_than_one_record_is_refused_at_the_call() {
        assertThatThrownBy(() -> Windows.count(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Windows.count(n)")
                .hasMessageContaining("was 0");
        KeyedStage<String, Event> k = Pipeline.create().readFrom(Sources.fromList(List.of(new Event("a", 1, 1)))).keyBy(Event::key);
        assertThatThrownBy(() -> k.window(Windows.count(3))).hasMessageContaining("window(count(3)) at CountWindowTest.java")
                .hasMessageContaining("withTimestamps");
    }
}
