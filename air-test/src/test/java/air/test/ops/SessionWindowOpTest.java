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
import air.test.OperatorHarness;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SessionWindowOp driven by the harness: sums per session against a plain loop that cuts as Flink
 * does (sessions that touch merge), with records of a key exactly one gap apart among the inputs.
 */
class SessionWindowOpTest {

    static final long GAP = 7;

    static Planned planned() {
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.<Ev>of()).withTimestamps(Ev::time, 0).keyByLong(Ev::key).window(Windows.session(GAP))
                .aggregate(Aggregations.sum(Ev::value)).writeTo(Sinks.collect());
        return Planned.of(p, JobConfig.defaults());
    }

    /** Sessions as Flink cuts them: a key's records sorted by time, a new session where the next is more than a gap later. */
    static List<String> plainSessions(List<Ev> events) {
        Map<Long, List<Ev>> byKey = new TreeMap<>();
        events.forEach(e -> byKey.computeIfAbsent(e.key(), k -> new ArrayList<>()).add(e));
        List<String> out = new ArrayList<>();
        byKey.forEach((key, list) -> {
            list.sort(Comparator.comparingLong(Ev::time));
            int from = 0;
            for (int i = 1; i <= list.size(); i++) {
                if (i == list.size() || list.get(i).time() - list.get(i - 1).time() > GAP) {
                    long sum = list.subList(from, i).stream().mapToLong(Ev::value).sum();
                    long end = list.get(i - 1).time() + GAP;
                    out.add(new WindowResult<>(list.get(from).time(), end, key, sum) + "@" + (end - 1));
                    from = i;
                }
            }
        });
        return out;
    }

    /** Random records, and after them two of a key exactly one gap apart (random ones may be too). */
    static List<Ev> events(long seed) {
        List<Ev> out = new ArrayList<>(Ev.random(seed, 30, 3, 120));
        out.add(new Ev(0, 130, 1, 0));
        out.add(new Ev(0, 130 + GAP, 2, 0));
        return out;
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4})
    void sessions_equal_a_plain_loop_however_they_are_driven(long seed) {
        Planned op = planned();
        List<Ev> events = events(seed);
        long pane = op.frame(0);
        List<Emitted> out = OperatorCheck.of(op.factory(), () -> op.script(List.of(events), 2 * pane, true)).hewMeld(pane, 0)
                .rescale(2, 1, Owners.byLongKey()).rescale(1, 2, Owners.byLongKey()).verify();
        assertThat(out).isNotEmpty().map(Emitted::toString).containsExactlyInAnyOrderElementsOf(plainSessions(events));
    }

    /** Records at 0 and at 0 + gap make one session, as in Flink (issue #32: before, two). */
    @Test
    void a_record_exactly_one_gap_after_the_last_continues_the_session_issue_32() {
        Planned op = planned();
        Ev a = new Ev(1, 0, 1, 0);
        Ev b = new Ev(1, GAP, 2, 0);
        OperatorHarness h = OperatorHarness.of(op.factory());
        h.item(op.partial(0, 0, 0, List.of(a), true)).item(op.partial(0, 0, GAP / op.frame(0) * op.frame(0), List.of(b), true))
                .endOfInput();
        h.assertOutput(new WindowResult<>(0L, 2 * GAP, 1L, 3L) + "@" + (2 * GAP - 1));
    }
}
