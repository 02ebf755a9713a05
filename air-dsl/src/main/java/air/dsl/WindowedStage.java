package air.dsl;

import air.dsl.impl.CallSite;
import air.dsl.impl.StageNode;
import air.dsl.impl.aggregate.ReduceOp;
import air.runtime.api.AggregateOp;
import air.runtime.api.SinkFactory;
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

    /**
     * Sends late records (behind the window's progress when they arrive) to {@code sink} instead of
     * only counting them in {@code air.late.records}.
     */
    public WindowedStage<K, T> sideOutputLateRecords(SinkFactory<? super T> sink) {
        String site = CallSite.ofCaller();
        pipeline.checkOpen("sideOutputLateRecords", site);
        Objects.requireNonNull(sink, "sideOutputLateRecords(sink) at " + site + ": sink is null");
        if (node.kind() == StageNode.Kind.LATE_OUTPUT) {
            throw new IllegalStateException("sideOutputLateRecords at " + site + ": late records already go to "
                    + node.info().name());
        }
        StageNode n = new StageNode(StageNode.Kind.LATE_OUTPUT, node, OperatorInfo.of("lateRecords", site), sink, 0, true);
        node.attach(n, "sideOutputLateRecords");
        return new WindowedStage<>(pipeline, n);
    }

    /** Combines each (window, key)'s records pairwise; {@code reduceFn} must be associative. */
    public Stage<WindowResult<K, T>> reduce(BinaryOperator<T> reduceFn) {
        String site = CallSite.ofCaller();
        Objects.requireNonNull(reduceFn, "reduce(reduceFn) at " + site + ": reduceFn is null");
        return aggregate(new ReduceOp<>(reduceFn));
    }
}
