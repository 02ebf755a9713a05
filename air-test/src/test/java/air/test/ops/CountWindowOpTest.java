package air.test.ops;

import static org.assertj.core.api.Assertions.assertThat;

import air.dsl.Aggregations;
import air.dsl.Pipeline;
import air.dsl.Sinks;
import air.dsl.Sources;
import air.dsl.Windows;
import air.runtime.JobConfig;
import air.runtime.api.WindowResult;
import air.test.Emitted;
import air.test.OperatorCheck;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** CountWindowOp driven by the harness: windows of 3 records per key (the rest dropped) against a plain loop; one producer. */
class CountWindowOpTest {

    static List<String> plainCounts(List<Ev> events, int size) {
        Map<Long, List<Ev>> byKey = new TreeMap<>();
        events.forEach(e -> byKey.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e));
        List<String> out = new ArrayList<>();
        byKey.forEach((key, list) -> {
            for (int from = 0; from + size <= list.size(); from += size) {
                List<Ev> w = list.subList(from, from + size);
                long last = w.get(size - 1).time();
                out.add(new WindowResult<>(w.get(0).time(), last + 1, key, w.stream().mapToLong(Ev::value).sum()) + "@" + last);
            }
        });
        return out;
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void windows_equal_a_plain_loop_however_they_are_driven(long seed) {
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.<Ev>of()).withTimestamps(Ev::time, 0).keyByLong(Ev::key).window(Windows.count(3))
                .aggregate(Aggregations.sum(Ev::value)).writeTo(Sinks.collect());
        Planned op = Planned.of(p, JobConfig.defaults());
        // one producer: a key's records then arrive in time order (several producers interleave as they arrive)
        List<Ev> events = Ev.random(seed, 30, 3, 600).stream().map(e -> new Ev(e.key(), e.time(), e.value(), 0)).toList();
        long pane = op.frame(0);
        List<Emitted> out = OperatorCheck.of(op.factory(), () -> op.script(List.of(events), pane, true)).hewMeld(pane, 0)
                .rescale(2, 1, Owners.byLongKey()).rescale(1, 2, Owners.byLongKey()).verify();
        assertThat(out).isNotEmpty().map(Emitted::toString).containsExactlyInAnyOrderElementsOf(plainCounts(events, 3));
    }
}
