package air.dsl;

import static org.assertj.core.api.Assertions.assertThat;

import air.dsl.TestPipelines.Event;
import air.runtime.JobConfig;
import air.runtime.plan.HeadSpec;
import air.runtime.plan.OpSpec;
import air.runtime.plan.PhysicalPlan;
import air.runtime.plan.TailSpec;
import air.runtime.plan.VertexPlan;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlannerTest {

    @Test
    void a_stateless_chain_fuses_into_one_vertex_with_its_sink() {
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.generate(10, i -> i)).map(i -> i + 1).filter(i -> i > 2).flatMap(List::of).writeTo(Sinks.collect());
        PhysicalPlan plan = p.plan(JobConfig.defaults().workers(3));
        assertThat(plan.vertices()).hasSize(1);
        VertexPlan v = plan.vertices().get(0);
        assertThat(v.parallelism()).isEqualTo(3);
        assertThat(v.head()).isInstanceOf(HeadSpec.Source.class);
        assertThat(v.chain()).extracting(op -> op.getClass().getSimpleName()).containsExactly("Map", "Filter", "FlatMap");
        assertThat(v.tail()).isInstanceOf(TailSpec.Sink.class);
    }

    @Test
    void a_keyed_window_splits_into_a_fused_partial_a_shuffle_and_a_final_stage() {
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.of(new Event("a", 1, 1)))
                .withTimestamps(Event::time, 5)
                .filter(e -> true)
                .keyBy(Event::key)
                .window(Windows.tumbling(10))
                .aggregate(Aggregations.count())
                .map(r -> r.key() + ":" + r.value())
                .writeTo(Sinks.collect());
        PhysicalPlan plan = p.plan(JobConfig.defaults().workers(2));
        assertThat(plan.vertices()).hasSize(2);
        VertexPlan upstream = plan.vertices().get(0);
        assertThat(upstream.chain()).hasSize(2).first().isInstanceOf(OpSpec.Timestamps.class);
        assertThat(upstream.tail()).isInstanceOf(TailSpec.PartialWindow.class);
        VertexPlan downstream = plan.vertices().get(1);
        assertThat(downstream.head()).isInstanceOf(HeadSpec.FinalWindow.class);
        assertThat(downstream.chain()).singleElement().isInstanceOf(OpSpec.Map.class);
        assertThat(downstream.tail()).isInstanceOf(TailSpec.Sink.class);

        String explained = p.explain(JobConfig.defaults().workers(2));
        assertThat(explained)
                .contains("vertex 0 x2: source list(1)")
                .contains("-> timestamps withTimestamps@PlannerTest.java:")
                .contains("disorder=5ms")
                .contains("-> window-partial count tumbling(10ms) by keyBy@PlannerTest.java:")
                .contains("== shuffle 0: vertex 0 -> vertex 1 input 0, KEY")
                .contains("vertex 1 x2: window-final count tumbling(10ms)")
                .contains("-> sink collect sink@PlannerTest.java:");
    }

    @Test
    void named_stages_show_their_names_in_the_plan() {
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.of(1L, 2L)).named("numbers").map(i -> i * 2).named("double").writeTo(Sinks.print());
        assertThat(p.explain()).contains("source list(2) numbers (source@PlannerTest.java:").contains("map double (map@PlannerTest.java:");
    }
}
