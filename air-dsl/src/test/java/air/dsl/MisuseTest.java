package air.dsl;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.dsl.TestPipelines.Event;
import air.runtime.JobConfig;
import air.runtime.api.JoinType;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Wrong DSL use fails when the pipeline is built, naming the call and the user's line. */
class MisuseTest {

    private static Stage<Event> events(Pipeline p) {
        return p.readFrom(Sources.fromList(List.of(new Event("a", 1, 1))));
    }

    @Test
    void window_without_timestamps_names_the_call_and_the_fix() {
        Pipeline p = Pipeline.create();
        KeyedStage<String, Event> keyed = events(p).keyBy(Event::key);
        assertThatThrownBy(() -> keyed.window(Windows.tumbling(10)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("window(tumbling(10ms)) at MisuseTest.java:")
                .hasMessageContaining("no event timestamps")
                .hasMessageContaining("withTimestamps(");
    }

    @Test
    void null_functions_are_rejected_with_the_parameter_name() {
        Stage<Event> s = events(Pipeline.create());
        assertThatThrownBy(() -> s.map(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("map at MisuseTest.java:").hasMessageContaining("mapFn is null");
        assertThatThrownBy(() -> s.filter(null)).hasMessageContaining("predicate is null");
        assertThatThrownBy(() -> s.flatMap(null)).hasMessageContaining("flatMapFn is null");
        assertThatThrownBy(() -> s.keyBy(null)).hasMessageContaining("keyBy(keyFn) at MisuseTest.java:").hasMessageContaining("keyFn is null");
        assertThatThrownBy(() -> s.keyByLong(null)).hasMessageContaining("keyFn is null");
        assertThatThrownBy(() -> s.withTimestamps(null, 0)).hasMessageContaining("timestampFn is null");
        assertThatThrownBy(() -> s.writeTo(null)).hasMessageContaining("sink is null");
        assertThatThrownBy(() -> Aggregations.sum(null)).hasMessageContaining("Aggregations.sum(valueFn): valueFn is null");
        assertThatThrownBy(() -> Sources.generate(3, null)).hasMessageContaining("generatorFn is null");
    }

    @Test
    void non_positive_sizes_are_rejected_with_the_value() {
        assertThatThrownBy(() -> Windows.tumbling(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Windows.tumbling(sizeMs): sizeMs must be > 0, was 0");
        assertThatThrownBy(() -> Windows.sliding(10, -1)).hasMessageContaining("slideMs must be > 0, was -1");
        assertThatThrownBy(() -> Windows.sliding(10, 3)).hasMessageContaining("must be a multiple of its slide");
        assertThatThrownBy(() -> Windows.sliding(10, 20)).hasMessageContaining("must not exceed its size");
        assertThatThrownBy(() -> events(Pipeline.create()).withTimestamps(Event::time, -5))
                .hasMessageContaining("allowedDisorderMs must be in [0, EventTime.MAX_SPAN");
        assertThatThrownBy(() -> JobConfig.defaults().workers(0)).hasMessageContaining("count must be in [1, 4096], was 0");
        assertThatThrownBy(() -> JobConfig.defaults().batchSize(0)).hasMessageContaining("was 0");
        assertThatThrownBy(() -> Sources.generate(-1, i -> i)).hasMessageContaining("count must be >= 0, was -1");
    }

    @Test
    void a_stage_used_after_the_pipeline_ran_is_rejected() {
        Pipeline p = Pipeline.create();
        Stage<Event> s = events(p);
        Stage<Event> filtered = s.filter(e -> true);
        filtered.writeTo(Sinks.collect());
        p.execute(TestPipelines.config(1));
        assertThatThrownBy(() -> filtered.map(e -> e))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("map at MisuseTest.java:")
                .hasMessageContaining("this pipeline already ran (started at MisuseTest.java:");
        assertThatThrownBy(() -> p.execute(TestPipelines.config(1))).hasMessageContaining("already ran");
    }

    @Test
    void timestamps_declared_twice_or_a_dangling_stage_or_no_source() {
        Pipeline p = Pipeline.create();
        Stage<Event> ts = events(p).withTimestamps(Event::time, 0);
        assertThatThrownBy(() -> ts.map(e -> e).withTimestamps(Event::time, 0))
                .hasMessageContaining("timestamps are already declared by withTimestamps@MisuseTest.java:");

        Pipeline q = Pipeline.create();
        Stage<Event> s = events(q);
        s.map(e -> e).writeTo(Sinks.collect());
        s.filter(e -> true); // a second branch that goes nowhere
        assertThatThrownBy(q::explain).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("filter@MisuseTest.java:").hasMessageContaining("feeds nothing: end it with writeTo");

        assertThatThrownBy(() -> Pipeline.create().explain()).hasMessageContaining("no source");
    }

    @Test
    void joins_merges_and_tables_refuse_what_cannot_work_naming_the_call() {
        Pipeline p = Pipeline.create();
        Stage<Event> timed = events(p).withTimestamps(Event::time, 0);
        WindowedStage<String, Event> tens = timed.keyBy(Event::key).window(Windows.tumbling(10));
        WindowedStage<String, Event> twenties = timed.keyBy(Event::key).window(Windows.tumbling(20));
        assertThatThrownBy(() -> tens.join(twenties, Aggregations.count(), Aggregations.count(), (k, a, b) -> a))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("join(other, leftOp, rightOp, INNER, joinFn) at MisuseTest.java:")
                .hasMessageContaining("the two sides window differently (tumbling(10ms) at MisuseTest.java:");
        assertThatThrownBy(() -> tens.join(tens, Aggregations.count(), Aggregations.count(), (k, a, b) -> a))
                .hasMessageContaining("cannot be joined with itself");
        WindowedStage<Long, Event> longKeyed = timed.keyByLong(Event::value).window(Windows.tumbling(10));
        assertThatThrownBy(() -> timed.keyBy(e -> 1L).window(Windows.tumbling(10))
                .join(longKeyed, Aggregations.count(), Aggregations.count(), (k, a, b) -> a))
                .hasMessageContaining("one side is keyed by keyByLong and the other by keyBy");

        KeyedStage<String, Event> untimed = events(p).keyBy(Event::key);
        assertThatThrownBy(() -> timed.keyBy(Event::key).intervalJoin(untimed, 1, 1, (k, a, b) -> a))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("intervalJoin(other, lowerMs=1, upperMs=1, joinFn) at MisuseTest.java:")
                .hasMessageContaining("keyBy@MisuseTest.java:").hasMessageContaining("has no event timestamps");
        assertThatThrownBy(() -> timed.keyBy(Event::key).intervalJoin(timed.keyBy(Event::key), -1, 1, (k, a, b) -> a))
                .hasMessageContaining("lowerMs and upperMs must be in [0, ");
        assertThatThrownBy(() -> timed.keyBy(Event::key).intervalJoin(timed.keyBy(Event::key), 0, Long.MAX_VALUE, (k, a, b) -> a))
                .hasMessageContaining("about a century");
        KeyedStage<String, Event> keyed = timed.keyBy(Event::key);
        assertThatThrownBy(() -> keyed.intervalJoin(keyed, 1, 1, (k, a, b) -> a)).hasMessageContaining("cannot be joined with itself");
        assertThatThrownBy(() -> tens.coGroup(tens, JoinType.FULL, (k, a, b) -> a))
                .hasMessageContaining("coGroup(other, FULL, fn) at MisuseTest.java:");
        assertThatThrownBy(() -> untimed.toTable(Event::value)).hasMessageContaining("toTable at MisuseTest.java:")
                .hasMessageContaining("the changelog has no event timestamps");
        Table<String, Long> table = timed.keyBy(Event::key).toTable(Event::value);
        assertThatThrownBy(() -> timed.keyBy(Event::key).lookupJoin(table, JoinType.RIGHT, (k, r, v) -> r))
                .hasMessageContaining("a lookup join is INNER or LEFT");

        assertThatThrownBy(() -> timed.merge(events(p))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("merge at MisuseTest.java:").hasMessageContaining("carries event timestamps")
                .hasMessageContaining("does not");
        Pipeline other = Pipeline.create();
        assertThatThrownBy(() -> timed.merge(events(other).withTimestamps(Event::time, 0)))
                .hasMessageContaining("merge at MisuseTest.java:").hasMessageContaining("belongs to another pipeline");
    }

    @Test
    void merges_of_merges_that_multiply_paths_past_the_limit_are_refused_when_planned() {
        Pipeline p = Pipeline.create();
        Stage<Event> s = events(p);
        for (int i = 0; i < 7; i++) {
            s = s.merge(s); // 2^7 paths to what follows
        }
        s.writeTo(Sinks.collect());
        assertThatThrownBy(p::explain).isInstanceOf(IllegalStateException.class).hasMessageContaining("is reached along 128 paths")
                .hasMessageContaining("at most 64");
    }
}
