package air.dsl.impl;

import air.runtime.api.AggregateOp;
import air.runtime.api.SinkFactory;
import air.runtime.api.SourceFactory;
import air.runtime.api.WindowDefinition;
import air.runtime.plan.HeadSpec;
import air.runtime.plan.KeySpec;
import air.runtime.plan.OpSpec;
import air.runtime.plan.PhysicalPlan;
import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import air.runtime.plan.TailSpec;
import air.runtime.plan.VertexPlan;
import air.runtime.plan.WindowAggregation;
import air.runtime.plan.WindowOutput;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * Turns the logical stages into vertices: stateless stages fuse into the current vertex; a keyed
 * window aggregation ends it with the partial half and starts the next one with the final half,
 * a shuffle between them; a sink ends the last vertex. A {@code topK} is planned as a window
 * aggregation whose final half ranks the keys of each window instead of emitting each.
 */
public final class Planner {

    private Planner() {
    }

    /** The payload of a {@code topK} stage: the aggregation, then what its final half emits. */
    public record TopK(AggregateOp<?, ?, ?> op, WindowOutput.TopK output) { }

    public static PhysicalPlan plan(StageNode source, int parallelism, Routing routing, Progress progress) {
        List<VertexPlan> vertices = new ArrayList<>();
        HeadSpec head = new HeadSpec.Source(source.info(), (SourceFactory<?>) source.payload());
        List<OpSpec> chain = new ArrayList<>();
        KeySpec key = null;
        WindowDefinition window = null;
        SinkFactory<?> lateRecords = null;
        for (StageNode n = source.downstream(); n != null; n = n.downstream()) {
            switch (n.kind()) {
                case MAP -> chain.add(new OpSpec.Map(n.info(), (Function<?, ?>) n.payload()));
                case FILTER -> chain.add(new OpSpec.Filter(n.info(), (Predicate<?>) n.payload()));
                case FLAT_MAP -> chain.add(flatMap(n));
                case TIMESTAMPS -> chain.add(new OpSpec.Timestamps(n.info(), (ToLongFunction<?>) n.payload(), n.argument()));
                case KEY_BY -> key = (KeySpec) n.payload();
                case WINDOW -> window = (WindowDefinition) n.payload();
                case LATE_OUTPUT -> lateRecords = (SinkFactory<?>) n.payload();
                case AGGREGATE, TOP_K -> {
                    if (key == null || window == null) {
                        throw new IllegalStateException(n.info().name() + ": aggregate needs keyBy(...).window(...) before it");
                    }
                    TopK topK = n.kind() == StageNode.Kind.TOP_K ? (TopK) n.payload() : null;
                    // a top-k ranks a whole window on one instance: its shuffle routes by window (AIR) whatever the
                    // job's routing, since under KEY each final instance holds only the keys it owns (explain shows it)
                    Routing routed = topK != null ? Routing.AIR : routing;
                    WindowAggregation agg;
                    try {
                        agg = new WindowAggregation(window, key, topK != null ? topK.op() : (AggregateOp<?, ?, ?>) n.payload(), routed,
                                progress, lateRecords);
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException(n.info().name() + ": " + e.getMessage(), e);
                    }
                    vertices.add(new VertexPlan(vertices.size(), parallelism, head, chain, new TailSpec.PartialWindow(n.info(), agg)));
                    head = new HeadSpec.FinalWindow(n.info(), agg, topK != null ? topK.output() : new WindowOutput.PerKey());
                    chain = new ArrayList<>();
                    key = null;
                    window = null;
                    lateRecords = null;
                }
                case SINK -> {
                    vertices.add(new VertexPlan(vertices.size(), parallelism, head, chain,
                            new TailSpec.Sink(n.info(), (SinkFactory<?>) n.payload())));
                    return new PhysicalPlan(vertices);
                }
                case SOURCE -> throw new IllegalStateException("a source cannot follow another stage");
            }
        }
        throw new IllegalStateException("the pipeline has no sink: end it with writeTo(...)");
    }

    @SuppressWarnings("unchecked")
    private static OpSpec flatMap(StageNode n) {
        return new OpSpec.FlatMap(n.info(), (Function<?, ? extends Iterable<?>>) n.payload());
    }
}
