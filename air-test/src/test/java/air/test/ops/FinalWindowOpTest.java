package air.test.ops;

import static org.assertj.core.api.Assertions.assertThat;

import air.dsl.Aggregations;
import air.dsl.Pipeline;
import air.dsl.Sinks;
import air.dsl.Sources;
import air.dsl.Windows;
import air.runtime.JobConfig;
import air.runtime.api.WindowDefinition;
import air.runtime.api.WindowResult;
import air.runtime.plan.Routing;
import air.test.Emitted;
import air.test.OperatorCheck;
import air.test.OperatorHarness;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** FinalWindowOp driven by the harness: sums per key and window against a plain loop, under every snapshot point and both progress modes. */
class FinalWindowOpTest {

    static Planned planned(WindowDefinition window, Routing routing) {
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.<Ev>of()).withTimestamps(Ev::time, 0).keyByLong(Ev::key).window(window)
                .aggregate(Aggregations.sum(Ev::value)).writeTo(Sinks.collect());
        return Planned.of(p, JobConfig.defaults().routing(routing));
    }

    /** Every window [s, s + size) (s a multiple of the slide) that holds records: the sum per key. */
    static List<WindowResult<Long, Long>> sums(List<Ev> events, long size, long slide) {
        Map<Long, Map<Long, Long>> sums = new TreeMap<>();
        for (Ev e : events) {
            long last = Math.floorDiv(e.time(), slide) * slide;
            for (long s = last; s > e.time() - size; s -= slide) {
                sums.computeIfAbsent(s, k -> new TreeMap<>()).merge(e.key(), e.value(), Long::sum);
            }
        }
        List<WindowResult<Long, Long>> out = new ArrayList<>();
        sums.forEach((start, perKey) -> perKey.forEach((key, sum) -> out.add(new WindowResult<>(start, start + size, key, sum))));
        return out;
    }

    /** {@link #sums} as the operator emits them, at end - 1. */
    static List<String> plainSums(List<Ev> events, long size, long slide) {
        return sums(events, size, slide).stream().map(r -> r + "@" + (r.end() - 1)).toList();
    }

    @ParameterizedTest(name = "size {0} slide {1} {2} seed {3}")
    @CsvSource({"10, 10, KEY, 1", "10, 10, AIR, 2", "20, 10, KEY, 3", "30, 10, KEY, 4", "20, 10, AIR, 5"})
    void sums_per_key_and_window_equal_a_plain_loop_however_it_is_driven(long size, long slide, Routing routing, long seed) {
        WindowDefinition window = size == slide ? Windows.tumbling(size) : Windows.sliding(size, slide);
        Planned op = planned(window, routing);
        List<Ev> events = Ev.random(seed, 24, 3, 60);
        OperatorCheck check = OperatorCheck.of(op.factory(), () -> op.script(List.of(events), 2 * slide, false)).hewMeld(slide, 0);
        if (routing == Routing.KEY) {
            check.rescale(2, 1, Owners.byLongKey()).rescale(1, 3, Owners.byLongKey());
        }
        List<Emitted> out = check.verify();
        assertThat(out).isNotEmpty().map(Emitted::toString).containsExactlyInAnyOrderElementsOf(plainSums(events, size, slide));
        assertThat(check.checkedIncremental()).as("FinalWindowOp writes changes").isTrue();
    }

    @ParameterizedTest(name = "size {0} slide {1}")
    @CsvSource({"10, 10", "20, 10"})
    void what_waits_on_progress_is_the_oldest_open_window(long size, long slide) {
        WindowDefinition window = size == slide ? Windows.tumbling(size) : Windows.sliding(size, slide);
        Planned op = planned(window, Routing.KEY);
        OperatorHarness h = OperatorHarness.of(op.factory());
        h.assertOldestPending(Long.MAX_VALUE);
        h.item(op.partial(0, 0, 10, List.of(new Ev(1, 12, 5, 0)), false)).progress(10);
        h.assertOldestPending(10).assertOutputProgress(10).assertOutput();
        h.snapshotAndRestore().assertOldestPending(10);
        h.progress(30).assertOldestPending(Long.MAX_VALUE).assertOutputProgress(30);
        assertThat(h.output()).map(Emitted::toString).containsExactlyInAnyOrderElementsOf(plainSums(List.of(new Ev(1, 12, 5, 0)), size, slide));
        h.endOfInput();
    }
}
