package air.test.ops;

import static org.assertj.core.api.Assertions.assertThat;

import air.dsl.Aggregations;
import air.dsl.Pipeline;
import air.dsl.Sinks;
import air.dsl.Sources;
import air.dsl.Windows;
import air.runtime.JobConfig;
import air.runtime.api.WindowUpdate;
import air.runtime.plan.Routing;
import air.test.Emitted;
import air.test.OperatorCheck;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** UpsertWindowOp driven by the harness: with records on time, one ON_TIME row per (window, key), the plain sum. */
class UpsertWindowOpTest {

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void on_time_rows_equal_a_plain_loop_however_it_is_driven(long seed) {
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.<Ev>of()).withTimestamps(Ev::time, 0).keyByLong(Ev::key).window(Windows.tumbling(10))
                .allowedLateness(Duration.ofMillis(20)).aggregate(Aggregations.sum(Ev::value)).writeTo(Sinks.collect());
        Planned op = Planned.of(p, JobConfig.defaults().routing(Routing.KEY));
        List<Ev> events = Ev.random(seed, 24, 3, 60);
        // restoreRescaled: the operator refuses other layouts (the default), so no rescale check
        List<Emitted> out = OperatorCheck.of(op.factory(), () -> op.script(List.of(events), 10, false)).hewMeld(10, 0).verify();
        List<String> expected = FinalWindowOpTest.sums(events, 10, 10).stream()
                .map(r -> new WindowUpdate<>(r.start(), r.end(), r.key(), r.value(), WindowUpdate.Kind.ON_TIME) + "@" + (r.end() - 1))
                .toList();
        assertThat(out).isNotEmpty().map(Emitted::toString).containsExactlyInAnyOrderElementsOf(expected);
    }
}
