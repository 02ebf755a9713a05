package air.test.ops;

import static org.assertj.core.api.Assertions.assertThat;

import air.dsl.Aggregations;
import air.dsl.Pipeline;
import air.dsl.Sinks;
import air.dsl.Sources;
import air.dsl.WindowedStage;
import air.dsl.Windows;
import air.runtime.JobConfig;
import air.runtime.api.JoinType;
import air.runtime.api.WindowResult;
import air.runtime.plan.Routing;
import air.test.Emitted;
import air.test.OperatorCheck;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** WindowJoinOp driven by the harness: per window and key, the left count and the right sum, joined by type, against a plain loop. */
class WindowJoinOpTest {

    static String both(Object count, Object sum) {
        return count + "/" + sum;
    }

    static List<String> plainJoin(List<Ev> left, List<Ev> right, long size, JoinType type) {
        Map<Long, Map<Long, Long>> counts = new TreeMap<>();
        Map<Long, Map<Long, Long>> sums = new TreeMap<>();
        left.forEach(e -> counts.computeIfAbsent(Math.floorDiv(e.time(), size) * size, k -> new TreeMap<>()).merge(e.key(), 1L, Long::sum));
        right.forEach(e -> sums.computeIfAbsent(Math.floorDiv(e.time(), size) * size, k -> new TreeMap<>()).merge(e.key(), e.value(),
                Long::sum));
        TreeSet<Long> windows = new TreeSet<>(counts.keySet());
        windows.addAll(sums.keySet());
        List<String> out = new ArrayList<>();
        for (long start : windows) {
            Map<Long, Long> l = counts.getOrDefault(start, Map.of());
            Map<Long, Long> r = sums.getOrDefault(start, Map.of());
            TreeSet<Long> keys = new TreeSet<>(l.keySet());
            keys.addAll(r.keySet());
            for (long key : keys) {
                boolean emit = switch (type) {
                    case INNER -> l.containsKey(key) && r.containsKey(key);
                    case LEFT -> l.containsKey(key);
                    case RIGHT -> r.containsKey(key);
                    case FULL -> true;
                };
                if (emit) {
                    out.add(new WindowResult<>(start, start + size, key, both(l.get(key), r.get(key))) + "@" + (start + size - 1));
                }
            }
        }
        return out;
    }

    @ParameterizedTest(name = "{0} {1} seed {2}")
    @CsvSource({"INNER, KEY, 1", "LEFT, KEY, 2", "RIGHT, AIR, 3", "FULL, KEY, 4", "FULL, AIR, 5"})
    void joined_windows_equal_a_plain_loop_however_they_are_driven(JoinType type, Routing routing, long seed) {
        Pipeline p = Pipeline.create();
        WindowedStage<Long, Ev> left = p.readFrom(Sources.<Ev>of()).withTimestamps(Ev::time, 0).keyByLong(Ev::key).window(Windows.tumbling(10));
        WindowedStage<Long, Ev> right = p.readFrom(Sources.<Ev>of()).withTimestamps(Ev::time, 0).keyByLong(Ev::key)
                .window(Windows.tumbling(10));
        left.join(right, Aggregations.count(), Aggregations.sum(Ev::value), type, (Long k, Long n, Long s) -> both(n, s))
                .writeTo(Sinks.collect());
        Planned op = Planned.of(p, JobConfig.defaults().routing(routing));
        List<Ev> a = Ev.random(seed, 20, 4, 50);
        List<Ev> b = Ev.random(seed + 100, 20, 4, 50);
        OperatorCheck check = OperatorCheck.of(op.factory(), () -> op.script(List.of(a, b), 20, false)).hewMeld(10, 0);
        if (routing == Routing.KEY) {
            check.rescale(2, 1, Owners.byLongKey()).rescale(1, 2, Owners.byLongKey());
        }
        List<Emitted> out = check.verify();
        assertThat(out).isNotEmpty().map(Emitted::toString).containsExactlyInAnyOrderElementsOf(plainJoin(a, b, 10, type));
    }
}
