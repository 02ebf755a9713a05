package air.test.ops;

import static org.assertj.core.api.Assertions.assertThat;

import air.dsl.KeyedStage;
import air.dsl.Pipeline;
import air.dsl.Sinks;
import air.dsl.Sources;
import air.runtime.JobConfig;
import air.test.Emitted;
import air.test.OperatorCheck;
import air.test.OperatorHarness;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** IntervalJoinOp driven by the harness: the pairs with a.time in [b.time - lower, b.time + upper] against a plain loop. */
class IntervalJoinOpTest {

    static Planned planned(long lower, long upper) {
        Pipeline p = Pipeline.create();
        KeyedStage<Long, Ev> a = p.readFrom(Sources.<Ev>of()).withTimestamps(Ev::time, 0).keyByLong(Ev::key);
        KeyedStage<Long, Ev> b = p.readFrom(Sources.<Ev>of()).withTimestamps(Ev::time, 0).keyByLong(Ev::key);
        a.intervalJoin(b, lower, upper, (Long k, Ev x, Ev y) -> x + "|" + y, EvCodec.EV, EvCodec.EV).writeTo(Sinks.collect());
        return Planned.of(p, JobConfig.defaults());
    }

    @ParameterizedTest(name = "[-{0}, +{1}] seed {2}")
    @CsvSource({"0, 0, 1", "5, 0, 2", "0, 12, 3", "7, 3, 4", "30, 30, 5"})
    void pairs_equal_a_plain_loop_however_they_are_driven(long lower, long upper, long seed) {
        Planned op = planned(lower, upper);
        List<Ev> a = Ev.random(seed, 16, 3, 80);
        List<Ev> b = Ev.random(seed + 100, 16, 3, 80);
        List<String> expected = new ArrayList<>();
        for (Ev y : b) {
            for (Ev x : a) {
                if (x.key() == y.key() && x.time() >= y.time() - lower && x.time() <= y.time() + upper) {
                    expected.add(x + "|" + y + "@" + Math.max(x.time(), y.time()));
                }
            }
        }
        long pane = op.frame(0);
        List<Emitted> out = OperatorCheck.of(op.factory(), () -> op.script(List.of(a, b), pane, true)).hewMeld(pane, 0)
                .rescale(2, 1, Owners.byLongKey()).rescale(1, 2, Owners.byLongKey()).verify();
        assertThat(out).isNotEmpty().map(Emitted::toString).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void its_output_progress_stays_behind_the_input_by_the_upper_bound() {
        Planned op = planned(5, 12);
        OperatorHarness h = OperatorHarness.of(op.factory());
        long pane = op.frame(0);
        h.item(0, op.partial(0, 0, 0, List.of(new Ev(1, 3, 1, 0)), true)).progress(10 * pane);
        assertThat(h.outputProgress()).isLessThanOrEqualTo(10 * pane - 12);
        h.item(1, op.partial(1, 0, 10 * pane, List.of(new Ev(1, 10 * pane + 1, 1, 0)), true)).endOfInput();
    }
}
