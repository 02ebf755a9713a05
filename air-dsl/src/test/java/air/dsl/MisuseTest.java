package air.dsl;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.dsl.TestPipelines.Event;
import air.runtime.JobConfig;
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
                .hasMessageContaining("allowedDisorderMs must be >= 0");
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
}
