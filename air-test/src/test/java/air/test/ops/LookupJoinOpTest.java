package air.test.ops;

import static org.assertj.core.api.Assertions.assertThat;

import air.dsl.Pipeline;
import air.dsl.Sinks;
import air.dsl.Sources;
import air.dsl.Table;
import air.runtime.JobConfig;
import air.runtime.api.JoinType;
import air.test.Emitted;
import air.test.OperatorCheck;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** LookupJoinOp driven by the harness: each record joined with its key's table value as of its event time, against a plain loop. */
class LookupJoinOpTest {

    @ParameterizedTest(name = "{0} seed {1}")
    @CsvSource({"INNER, 1", "LEFT, 2", "INNER, 3", "LEFT, 4"})
    void each_record_sees_the_table_as_of_its_time_however_it_is_driven(JoinType type, long seed) {
        Pipeline p = Pipeline.create();
        Table<Long, Long> table = p.readFrom(Sources.<Ev>of()).withTimestamps(Ev::time, 0).keyByLong(Ev::key)
                .toTable(e -> e.value() % 4 == 0 ? null : e.value(), EvCodec.EV);
        p.readFrom(Sources.<Ev>of()).withTimestamps(Ev::time, 0).keyByLong(Ev::key)
                .lookupJoin(table, type, (Long k, Ev r, Long v) -> r + "=" + v, EvCodec.EV).writeTo(Sinks.collect());
        Planned op = Planned.of(p, JobConfig.defaults());
        List<Ev> records = Ev.random(seed, 20, 3, 600);
        // one change per (key, time) at most, else which is newest is the arrival order's
        Map<String, Ev> unique = new LinkedHashMap<>();
        Ev.random(seed + 100, 20, 3, 600).forEach(e -> unique.putIfAbsent(e.key() + "@" + e.time(), e));
        List<Ev> changes = new ArrayList<>(unique.values());
        List<String> expected = new ArrayList<>();
        for (Ev r : records) {
            Ev latest = null;
            for (Ev ch : changes) {
                if (ch.key() == r.key() && ch.time() <= r.time() && (latest == null || ch.time() > latest.time())) {
                    latest = ch;
                }
            }
            Long value = latest == null || latest.value() % 4 == 0 ? null : latest.value();
            if (value != null || type == JoinType.LEFT) {
                expected.add(r + "=" + value + "@" + r.time());
            }
        }
        long pane = op.frame(0);
        List<Emitted> out = OperatorCheck.of(op.factory(), () -> op.script(List.of(records, changes), 2 * pane, true)).hewMeld(pane, 0)
                .rescale(2, 1, Owners.byLongKey()).rescale(1, 2, Owners.byLongKey()).verify();
        assertThat(out).isNotEmpty().map(Emitted::toString).containsExactlyInAnyOrderElementsOf(expected);
    }
}
