package air.dsl;

import air.dsl.impl.CallSite;
import air.dsl.impl.Planner;
import air.dsl.impl.StageNode;
import air.dsl.impl.aggregate.ReduceOp;
import air.runtime.api.AggregateOp;
import air.runtime.api.SinkFactory;
import air.runtime.api.WindowResult;
import air.runtime.api.WindowTopK;
import air.runtime.plan.OperatorInfo;
import air.runtime.plan.WindowOutput;
import java.util.Comparator;
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

    /**
     * The {@code n} keys with the greatest {@code op} result per window, best first by
     * {@code comparator} (ties: the smaller key first when keys are comparable), as one
     * {@link WindowTopK} per window with event time {@code end - 1}, e.g. the 3 campaigns with the
     * most views: {@code topK(3, Aggregations.count(), Comparator.naturalOrder())}. Aggregated as
     * {@link #aggregate} does, then ranked where the whole window is: its shuffle routes by window
     * (AIR) whatever the job's routing, since under KEY no instance holds a whole window.
     */
    public <A, R> Stage<WindowTopK<K, R>> topK(int n, AggregateOp<? super T, A, ? extends R> op, Comparator<? super R> comparator) {
        String site = CallSite.ofCaller();
        pipeline.checkOpen("topK", site);
        String call = "topK(" + n + ", op, comparator) at " + site;
        if (n < 1) {
            throw new IllegalArgumentException(call + ": n must be >= 1, was " + n);
        }
        Objects.requireNonNull(op, call + ": op is null");
        Objects.requireNonNull(comparator, call + ": comparator is null");
        StageNode t = new StageNode(StageNode.Kind.TOP_K, node, OperatorInfo.of("topK-" + op.name(), site),
                new Planner.TopK(op, new WindowOutput.TopK(n, comparator)), 0, true);
        node.attach(t, "topK");
        return new Stage<>(pipeline, t);
    }

    /** {@link #topK(int, AggregateOp, Comparator)} by the results' natural order: the greatest first. */
    public <A, R extends Comparable<? super R>> Stage<WindowTopK<K, R>> topK(int n, AggregateOp<? super T, A, R> op) {
        return topK(n, op, Comparator.naturalOrder());
    }

    /** Combines each (window, key)'s records pairwise; {@code reduceFn} must be associative. */
    public Stage<WindowResult<K, T>> reduce(BinaryOperator<T> reduceFn) {
        String site = CallSite.ofCaller();
        Objects.requireNonNull(reduceFn, "reduce(reduceFn) at " + site + ": reduceFn is null");
        return aggregate(new ReduceOp<>(reduceFn));
    }
}
