package air.dsl;

import air.dsl.impl.CallSite;
import air.dsl.impl.StageNode;
import air.dsl.impl.aggregate.ReduceOp;
import air.runtime.api.AggregateOp;
import air.runtime.api.SinkFactory;
import air.runtime.api.WindowUpdate;
import air.runtime.plan.OperatorInfo;
import java.time.Duration;
import java.util.Objects;
import java.util.function.BinaryOperator;

/**
 * Keyed tumbling or sliding windows that may be emitted more than once (allowed lateness, early
 * results), waiting for their aggregation: its rows are {@link WindowUpdate} upserts of
 * (window, key), each with its kind ({@code EARLY}, {@code ON_TIME}, {@code LATE}). A sink that
 * keeps the last row per (start, end, key) converges to the result over every record the windows
 * admitted. No top-k or join: they rank or pair whole windows, emitted once.
 */
public final class UpdatingWindowedStage<K, T> {

    private final Pipeline pipeline;
    private final StageNode node;

    UpdatingWindowedStage(Pipeline pipeline, StageNode node) {
        this.pipeline = pipeline;
        this.node = node;
    }

    /** {@link WindowedStage#allowedLateness(Duration)}; at most once per window. */
    public UpdatingWindowedStage<K, T> allowedLateness(Duration lateness) {
        return new UpdatingWindowedStage<>(pipeline, WindowSettings.lateness(pipeline, node, lateness, CallSite.ofCaller()));
    }

    /** {@link WindowedStage#earlyResults(Duration)}; at most once per window. */
    public UpdatingWindowedStage<K, T> earlyResults(Duration interval) {
        return new UpdatingWindowedStage<>(pipeline, WindowSettings.earlyResults(pipeline, node, interval, CallSite.ofCaller()));
    }

    /** {@link WindowedStage#sideOutputLateRecords(SinkFactory)}: records later than the allowed lateness go to {@code sink}. */
    public UpdatingWindowedStage<K, T> sideOutputLateRecords(SinkFactory<? super T> sink) {
        return new UpdatingWindowedStage<>(pipeline, WindowSettings.lateOutput(pipeline, node, sink, CallSite.ofCaller()));
    }

    /**
     * Aggregates each (window, key) as {@link WindowedStage#aggregate} does, emitting
     * {@link WindowUpdate} rows: {@code ON_TIME} once progress passes the window's end (event time
     * {@code end - 1}), {@code LATE} for each key records within the allowed lateness updated
     * (event time {@code end - 1}, or the progress already passed when later), {@code EARLY} while
     * open on the early-results interval.
     */
    public <A, R> Stage<WindowUpdate<K, R>> aggregate(AggregateOp<? super T, A, ? extends R> op) {
        String site = CallSite.ofCaller();
        pipeline.checkOpen("aggregate", site);
        Objects.requireNonNull(op, "aggregate(op) at " + site + ": op is null");
        StageNode n = new StageNode(StageNode.Kind.AGGREGATE, node, OperatorInfo.of(op.name(), site), op, 0, true);
        node.attach(n);
        return new Stage<>(pipeline, n);
    }

    /** {@link #aggregate} with {@code reduceFn}, which must be associative and commutative (see {@link WindowedStage#reduce}). */
    public Stage<WindowUpdate<K, T>> reduce(BinaryOperator<T> reduceFn) {
        String site = CallSite.ofCaller();
        Objects.requireNonNull(reduceFn, "reduce(reduceFn) at " + site + ": reduceFn is null");
        return aggregate(new ReduceOp<>(reduceFn));
    }
}
