package air.dsl;

import air.dsl.impl.CallSite;
import air.dsl.impl.Planner;
import air.dsl.impl.StageNode;
import air.dsl.impl.aggregate.ReduceOp;
import air.runtime.api.AggregateOp;
import air.runtime.api.JoinFunction;
import air.runtime.api.JoinType;
import air.runtime.api.PerKeyWindow;
import air.runtime.api.SinkFactory;
import air.runtime.api.WindowDefinition;
import air.runtime.api.WindowResult;
import air.runtime.api.WindowTopK;
import air.runtime.api.WindowUpdate;
import air.runtime.plan.KeySpec;
import air.runtime.plan.OperatorInfo;
import air.runtime.plan.WindowOutput;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.BinaryOperator;

/** Keyed windows waiting for their aggregation, a top-k, or a join with another keyed windowed stream. */
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
        node.attach(n);
        return new Stage<>(pipeline, n);
    }

    /**
     * Sends late records (behind the window's progress when they arrive) to {@code sink} instead of
     * only counting them in {@code air.late.records}. For every window kind: a session or count
     * window's late records reach the sink as they were (not stamped).
     */
    public WindowedStage<K, T> sideOutputLateRecords(SinkFactory<? super T> sink) {
        return new WindowedStage<>(pipeline, WindowSettings.lateOutput(pipeline, node, sink, CallSite.ofCaller()));
    }

    /**
     * Keeps each window's state for {@code lateness} of event time after its end: a record late by
     * at most that much (its earliest window ends more than {@code lateness} after the progress it
     * is judged against) updates the window's result, and the aggregation emits
     * {@link WindowUpdate} upserts (a {@code LATE} row per updated key, after the {@code ON_TIME}
     * one); later records follow the late-record policy. Tumbling and sliding windows; refused on
     * session and count windows. See docs/dsl.md, "Allowed lateness and early results".
     */
    public UpdatingWindowedStage<K, T> allowedLateness(Duration lateness) {
        return new UpdatingWindowedStage<>(pipeline, WindowSettings.lateness(pipeline, node, lateness, CallSite.ofCaller()));
    }

    /**
     * Emits, while a window is open, an {@code EARLY} {@link WindowUpdate} row per key at most
     * {@code interval} of processing time (the job's {@code TimeSource}) after its value changed,
     * then the {@code ON_TIME} rows when progress passes its end. Tumbling and sliding windows.
     */
    public UpdatingWindowedStage<K, T> earlyResults(Duration interval) {
        return new UpdatingWindowedStage<>(pipeline, WindowSettings.earlyResults(pipeline, node, interval, CallSite.ofCaller()));
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
        refusePerKeyWindow(node, call, "a top-k ranks the keys of one window, and these windows differ per key");
        StageNode t = new StageNode(StageNode.Kind.TOP_K, node, OperatorInfo.of("topK-" + op.name(), site),
                new Planner.TopK(op, new WindowOutput.TopK(n, comparator)), 0, true);
        node.attach(t);
        return new Stage<>(pipeline, t);
    }

    /** {@link #topK(int, AggregateOp, Comparator)} by the results' natural order: the greatest first. */
    public <A, R extends Comparable<? super R>> Stage<WindowTopK<K, R>> topK(int n, AggregateOp<? super T, A, R> op) {
        return topK(n, op, Comparator.naturalOrder());
    }

    /**
     * A window join of this stream (the left side) and {@code other} (the right) on (window, key):
     * each side is aggregated per (window, key) as {@link #aggregate} does, then for each key of a
     * window that {@code type} keeps, {@code joinFn} gets both sides' results ({@code null} for a
     * side without records of that key) and its result is emitted as a {@link WindowResult} with
     * event time {@code end - 1}. Both sides must use the same window definition; a window closes
     * once both sides' progress has passed it. Both sides' partials route alike, so the join needs
     * no second shuffle.
     */
    public <U, RL, RR, O> Stage<WindowResult<K, O>> join(WindowedStage<K, U> other, AggregateOp<? super T, ?, ? extends RL> leftOp,
                                                         AggregateOp<? super U, ?, ? extends RR> rightOp, JoinType type,
                                                         JoinFunction<? super K, ? super RL, ? super RR, ? extends O> joinFn) {
        String site = CallSite.ofCaller();
        return join("join", "join(other, leftOp, rightOp, " + type + ", joinFn) at " + site, site, other, leftOp, rightOp, type, joinFn);
    }

    /** A window join for the call {@code name} (described as {@code call} in refusals). */
    private <U, RL, RR, O> Stage<WindowResult<K, O>> join(String name, String call, String site, WindowedStage<K, U> other,
                                                          AggregateOp<? super T, ?, ? extends RL> leftOp,
                                                          AggregateOp<? super U, ?, ? extends RR> rightOp, JoinType type,
                                                          JoinFunction<? super K, ? super RL, ? super RR, ? extends O> joinFn) {
        pipeline.checkOpen(name, site);
        Objects.requireNonNull(other, call + ": other is null");
        Objects.requireNonNull(leftOp, call + ": leftOp is null");
        Objects.requireNonNull(rightOp, call + ": rightOp is null");
        Objects.requireNonNull(type, name + "(...) at " + site + ": type is null");
        Objects.requireNonNull(joinFn, call + ": joinFn is null");
        pipeline.requireOwn(other.pipeline, name, site);
        refusePerKeyWindow(node, call, "a join pairs (window, key)s of two streams, and these windows differ per stream");
        refusePerKeyWindow(other.node, call, "a join pairs (window, key)s of two streams, and these windows differ per stream");
        if (other.node == node) {
            throw new IllegalArgumentException(call + ": a windowed stream cannot be joined with itself; key or window a second"
                    + " copy of the stream (the same stage may feed both)");
        }
        WindowDefinition mine = windowOf(node);
        WindowDefinition theirs = windowOf(other.node);
        if (!mine.equals(theirs)) {
            throw new IllegalArgumentException(call + ": the two sides window differently (" + mine + " at " + windowNode(node)
                    .info().callSite() + ", " + theirs + " at " + windowNode(other.node).info().callSite()
                    + "); a window join needs one window definition");
        }
        KeySpec myKey = keyOf(node);
        KeySpec theirKey = keyOf(other.node);
        if (myKey.getClass() != theirKey.getClass()) {
            throw new IllegalArgumentException(call + ": one side is keyed by keyByLong and the other by keyBy (" + myKey.info().name()
                    + ", " + theirKey.info().name() + "); key both sides the same way");
        }
        StageNode j = new StageNode(StageNode.Kind.JOIN, List.of(node, other.node), OperatorInfo.of("join-" + type.name()
                .toLowerCase(Locale.ROOT), site), new Planner.Join(leftOp, rightOp, type, joinFn), 0, true);
        node.attach(j);
        other.node.attach(j);
        return new Stage<>(pipeline, j);
    }

    /** {@link #join(WindowedStage, AggregateOp, AggregateOp, JoinType, JoinFunction)} as an inner join. */
    public <U, RL, RR, O> Stage<WindowResult<K, O>> join(WindowedStage<K, U> other, AggregateOp<? super T, ?, ? extends RL> leftOp,
                                                         AggregateOp<? super U, ?, ? extends RR> rightOp,
                                                         JoinFunction<? super K, ? super RL, ? super RR, ? extends O> joinFn) {
        return join(other, leftOp, rightOp, JoinType.INNER, joinFn);
    }

    /**
     * A co-group: {@link #join} over each side's records of the (window, key) themselves, as
     * lists (empty, not null, for a side without records under outer types). Keeps every record
     * until its window fires, and cannot cross peers or checkpoints: use {@link #join} with
     * {@link Aggregations#toList(air.runtime.api.Codec)} on each side for that.
     */
    public <U, O> Stage<WindowResult<K, O>> coGroup(WindowedStage<K, U> other, JoinType type,
                                                    JoinFunction<? super K, ? super List<T>, ? super List<U>, ? extends O> fn) {
        String site = CallSite.ofCaller();
        String call = "coGroup(other, " + type + ", fn) at " + site;
        Objects.requireNonNull(other, call + ": other is null");
        Objects.requireNonNull(fn, call + ": fn is null");
        return join("coGroup", call, site, other, Aggregations.<T>toList(), Aggregations.<U>toList(), type,
                (K key, List<T> l, List<U> r) -> fn.apply(key, l == null ? List.of() : l, r == null ? List.of() : r));
    }

    /** Refuses {@code call} on session and count windows, saying {@code why}. */
    private static void refusePerKeyWindow(StageNode n, String call, String why) {
        if (windowNode(n).payload() instanceof PerKeyWindow w) {
            throw new IllegalArgumentException(call + ": not over " + w + " windows (" + windowNode(n).info().name() + "): " + why
                    + "; aggregate(...) or reduce(...) them");
        }
    }

    private static StageNode windowNode(StageNode n) {
        return WindowSettings.windowNode(n);
    }

    private static WindowDefinition windowOf(StageNode n) {
        return (WindowDefinition) windowNode(n).payload();
    }

    private static KeySpec keyOf(StageNode n) {
        return (KeySpec) windowNode(n).upstream().payload();
    }

    /**
     * Combines each (window, key)'s records pairwise into one. {@code reduceFn} must be
     * <b>associative and commutative</b>: workers pre-aggregate their own records and the partial
     * results are combined in whatever order they arrive, so neither the grouping nor the order of
     * records is kept (a concatenation gives a different string from run to run). For an ordered
     * result, aggregate with {@link Aggregations#toList()} and sort in a later {@code map}.
     */
    public Stage<WindowResult<K, T>> reduce(BinaryOperator<T> reduceFn) {
        String site = CallSite.ofCaller();
        Objects.requireNonNull(reduceFn, "reduce(reduceFn) at " + site + ": reduceFn is null");
        return aggregate(new ReduceOp<>(reduceFn));
    }
}
