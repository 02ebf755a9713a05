package air.dsl;

import air.dsl.impl.CallSite;
import air.dsl.impl.StageNode;
import air.dsl.impl.aggregate.ReduceOp;
import air.runtime.api.AggregateOp;
import air.runtime.api.SinkFactory;
import air.runtime.api.WindowResult;
import air.runtime.api.WindowValue;
import air.runtime.plan.OperatorInfo;
import java.util.Objects;
import java.util.function.BinaryOperator;
import java.util.function.Function;

/**
 * The windows of a whole, unkeyed stream waiting for their aggregation. Partials are made on
 * every worker; under AIR routing window {@code k}'s are merged on instance {@code k mod N}, so
 * the finals of successive windows run on successive workers (the query AIR's sharding by window
 * was built for); under KEY routing one instance owns the single key, and so every window.
 */
public final class AllWindowedStage<T> {

    private final Pipeline pipeline;
    private final StageNode node;

    AllWindowedStage(Pipeline pipeline, StageNode node) {
        this.pipeline = pipeline;
        this.node = node;
    }

    /** Aggregates each window: one {@link WindowValue} per window with records, with event time {@code end - 1}. */
    public <A, R> Stage<WindowValue<R>> aggregate(AggregateOp<? super T, A, ? extends R> op) {
        String site = CallSite.ofCaller();
        pipeline.checkOpen("aggregate", site);
        Objects.requireNonNull(op, "aggregate(op) at " + site + ": op is null");
        StageNode n = new StageNode(StageNode.Kind.AGGREGATE, node, OperatorInfo.of(op.name(), site), op, 0, true);
        node.attach(n);
        StageNode value = new StageNode(StageNode.Kind.MAP, n, OperatorInfo.of("windowValue", site),
                (Function<WindowResult<?, R>, WindowValue<R>>) r -> new WindowValue<>(r.start(), r.end(), r.value()),
                0, true);
        n.attach(value);
        return new Stage<>(pipeline, value);
    }

    /**
     * Combines each window's records pairwise into one. {@code reduceFn} must be
     * <b>associative and commutative</b>: workers pre-aggregate their own records and the partial
     * results are combined in whatever order they arrive, so neither the grouping nor the order of
     * records is kept (a concatenation gives a different string from run to run). For an ordered
     * result, aggregate with {@link Aggregations#toList()} and sort in a later {@code map}.
     */
    public Stage<WindowValue<T>> reduce(BinaryOperator<T> reduceFn) {
        String site = CallSite.ofCaller();
        Objects.requireNonNull(reduceFn, "reduce(reduceFn) at " + site + ": reduceFn is null");
        return aggregate(new ReduceOp<>(reduceFn));
    }

    /** Sends late records to {@code sink} instead of only counting them in {@code air.late.records}. */
    public AllWindowedStage<T> sideOutputLateRecords(SinkFactory<? super T> sink) {
        String site = CallSite.ofCaller();
        pipeline.checkOpen("sideOutputLateRecords", site);
        Objects.requireNonNull(sink, "sideOutputLateRecords(sink) at " + site + ": sink is null");
        if (node.kind() == StageNode.Kind.LATE_OUTPUT) {
            throw new IllegalStateException("sideOutputLateRecords at " + site + ": late records already go to " + node.info().name());
        }
        StageNode n = new StageNode(StageNode.Kind.LATE_OUTPUT, node, OperatorInfo.of("lateRecords", site), sink, 0, true);
        node.attach(n);
        return new AllWindowedStage<>(pipeline, n);
    }
}
