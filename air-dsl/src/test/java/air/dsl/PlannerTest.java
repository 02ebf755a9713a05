package air.dsl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.dsl.TestPipelines.Event;
import air.dsl.impl.Planner;
import air.dsl.impl.StageNode;
import air.runtime.JobConfig;
import air.runtime.plan.HeadSpec;
import air.runtime.plan.OpSpec;
import air.runtime.plan.OperatorInfo;
import air.runtime.plan.PhysicalPlan;
import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import air.runtime.plan.TailSpec;
import air.runtime.plan.VertexPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
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

    @Test
    void a_dataflow_plans_one_vertex_per_source_and_window_operator_with_forks_copies_and_edges() {
        Pipeline p = Pipeline.create();
        Stage<Event> a = p.readFrom(Sources.of(new Event("a", 1, 1))).withTimestamps(Event::time, 0);
        Stage<Event> b = p.readFrom(Sources.of(new Event("b", 2, 2))).withTimestamps(Event::time, 0);
        Stage<Event> both = a.merge(b).filter(e -> e.value() > 0);
        both.writeTo(Sinks.collect());                                           // merged: one sink copy per source
        WindowedStage<String, Event> left = both.keyBy(Event::key).window(Windows.tumbling(10));
        WindowedStage<String, Event> right = a.keyBy(Event::key).window(Windows.tumbling(10));
        left.join(right, Aggregations.count(), Aggregations.count(), (k, x, y) -> x + y).writeTo(Sinks.collect());
        PhysicalPlan plan = p.plan(JobConfig.defaults().workers(2));

        assertThat(plan.vertices()).hasSize(3);
        assertThat(plan.vertices().get(2).head()).isInstanceOf(HeadSpec.WindowJoin.class);
        assertThat(plan.edges()).extracting(e -> e.from() + "->" + e.to() + ":" + e.input())
                .containsExactlyInAnyOrder("0->2:0", "0->2:1", "1->2:0");
        TailSpec.Fork fork = (TailSpec.Fork) plan.vertices().get(0).tail(); // source a: the merged path and the right side
        assertThat(fork.branches()).hasSize(2);
        List<TailSpec.Sink> sinks = new ArrayList<>();
        for (VertexPlan v : plan.vertices().subList(0, 2)) {
            collectSinks(v.tail(), sinks);
        }
        assertThat(sinks).extracting(s -> s.copy() + "/" + s.copies()).containsExactlyInAnyOrder("0/2", "1/2");
        assertThat(plan.explain()).contains("physical plan: 3 vertex(es), 3 shuffle(s)").contains("-> fork into 2 branches")
                .contains("branch 1:").contains("window-join INNER").contains("<- input 0: shuffle").contains("(copy 2 of 2)");
    }

    private static void collectSinks(TailSpec tail, List<TailSpec.Sink> out) {
        switch (tail) {
            case TailSpec.Sink s -> out.add(s);
            case TailSpec.Fork f -> f.branches().forEach(br -> collectSinks(br.tail(), out));
            case TailSpec.Shuffle w -> { }
        }
    }

    @Test
    void a_cycle_is_refused_naming_its_stages() {
        // the DSL only links new stages to existing ones, so only hand-built nodes can form a cycle
        StageNode source = new StageNode(StageNode.Kind.SOURCE, (StageNode) null,
                OperatorInfo.of("source", "T.java:1"), Sources.of(1), 0, false);
        StageNode x = new StageNode(StageNode.Kind.MERGE, List.of(source, source),
                OperatorInfo.of("merge", "T.java:2"), null, 0, false);
        StageNode y = new StageNode(StageNode.Kind.MAP, x,
                OperatorInfo.of("map", "T.java:3"), (Function<Object, Object>) o -> o, 0, false);
        source.attach(x);
        x.attach(y);
        y.attach(x); // y feeds its own upstream
        assertThatThrownBy(() -> Planner.plan(List.of(source), 1,
                Routing.KEY, Progress.WATERMARK))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("cycle").hasMessageContaining("map@T.java:3");
    }
}
