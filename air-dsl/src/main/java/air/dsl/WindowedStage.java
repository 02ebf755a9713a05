package air.dsl;

import air.dsl.impl.CallSite;
import air.dsl.impl.StageNode;
import air.dsl.impl.aggregate.ReduceOp;
import air.runtime.api.AggregateOp;
import air.runtime.api.WindowResult;
import air.runtime.plan.OperatorInfo;
import java.util.Objects;
import java.util.function.BinaryOperator;

/** Keyed windows waiting for their aggregation. */
public final class WindowedStage<K, T> {

    private final Pipeline pipeline;
    private final StageNode node;

    WindowedStage(Pipeline pipeline, StageNode node) {
        this.pipeline = pipeline;
        this.node = node;
    }

    /**
     * Aggregates each (window, key): pre-aggregated on every worker, merged at the key's owner,
     * emitted once the window's end has passed. Results carry event time {@code end - 1}.
     */
    public <A, R> Stage<WindowResult<K, R>> aggregate(AggregateOp<? super T, A, ? extends R> op) {
        String site = CallSite.ofCaller();
        pipeline.checkOpen("aggregate", site);
        Objects.requireNonNull(op, "aggregate(op) at " + site + ": op is null");
        StageNode n = new StageNode(StageNode.Kind.AGGREGATE, node, OperatorInfo.of(op.name(), site), op, 0, true);
        node.attach(n, "aggregate");
        return new Stage<>(pipeline, n);
    }

    /** Combines each (window, key)'s records pairwise; {@code reduceFn} must be associative. */
    public Stage<WindowResult<K, T>> reduce(BinaryOperator<T> reduceFn) {
        String site = CallSite.ofCaller();
        Objects.requireNonNull(reduceFn, "reduce(reduceFn) at " + site + ": reduceFn is null");
        return aggregate(new ReduceOp<>(reduceFn));
    }
}
