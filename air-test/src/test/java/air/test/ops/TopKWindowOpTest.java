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
import air.runtime.api.WindowTopK;
import air.test.Emitted;
import air.test.OperatorCheck;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** TopKWindowOp driven by the harness: the 2 greatest sums per window (ties: smaller key first) against a plain sort. */
class TopKWindowOpTest {

    static List<String> plainTop(List<Ev> events, long size, int n) {
        Map<Long, Map<Long, Long>> sums = new TreeMap<>();
        for (Ev e : events) {
            sums.computeIfAbsent(Math.floorDiv(e.time(), size) * size, k -> new TreeMap<>()).merge(e.key(), e.value(), Long::sum);
        }
        List<String> out = new ArrayList<>();
        sums.forEach((start, perKey) -> {
            List<WindowResult<Long, Long>> all = new ArrayList<>();
            perKey.forEach((k, v) -> all.add(new WindowResult<>(start, start + size, k, v)));
            all.sort(Comparator.comparing((WindowResult<Long, Long> r) -> -r.value()).thenComparing(WindowResult::key));
            out.add(new WindowTopK<>(start, start + size, all.subList(0, Math.min(n, all.size()))) + "@" + (start + size - 1));
        });
        return out;
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void rankings_equal_a_plain_sort_however_it_is_driven(long seed) {
        WindowDefinition window = Windows.tumbling(10);
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.<Ev>of()).withTimestamps(Ev::time, 0).keyByLong(Ev::key).window(window)
                .topK(2, Aggregations.sum(Ev::value)).writeTo(Sinks.collect());
        Planned op = Planned.of(p, JobConfig.defaults());
        List<Ev> events = Ev.random(seed, 30, 4, 60);
        List<Emitted> out = OperatorCheck.of(op.factory(), () -> op.script(List.of(events), 20, false)).hewMeld(10, 0)
                .rescale(2, 1, Owners.byWindow(window)).rescale(1, 2, Owners.byWindow(window)).verify();
        assertThat(out).isNotEmpty().map(Emitted::toString).containsExactlyInAnyOrderElementsOf(plainTop(events, 10, 2));
    }
}
