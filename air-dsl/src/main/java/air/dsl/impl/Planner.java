package air.dsl.impl;

import air.runtime.api.AggregateOp;
import air.runtime.api.BadRecordPolicy;
import air.runtime.api.Codec;
import air.runtime.api.CountWindow;
import air.runtime.api.JoinFunction;
import air.runtime.api.JoinType;
import air.runtime.api.KeyedProcessFunction;
import air.runtime.api.OutputTag;
import air.runtime.api.PerKeyWindow;
import air.runtime.api.SessionWindow;
import air.runtime.api.SinkFactory;
import air.runtime.api.SourceFactory;
import air.runtime.api.StateDescriptor;
import air.runtime.api.Timestamped;
import air.runtime.api.WindowDefinition;
import air.runtime.plan.CountPart;
import air.runtime.plan.HeadSpec;
import air.runtime.plan.JoinSpec;
import air.runtime.plan.KeySpec;
import air.runtime.plan.OpSpec;
import air.runtime.plan.OperatorInfo;
import air.runtime.plan.PhysicalPlan;
import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import air.runtime.plan.SessionPart;
import air.runtime.plan.ShuffleEdge;
import air.runtime.plan.SideOutputItem;
import air.runtime.plan.TailSpec;
import air.runtime.plan.VertexPlan;
import air.runtime.plan.WindowAggregation;
import air.runtime.plan.WindowOutput;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * Turns the logical graph into vertices. Every source and every window operator (aggregation,
 * top-k, join) heads a vertex; what follows a head up to the next window operator or sink fuses
 * into that vertex: stateless stages in a chain, a stage that feeds several stages as a fork, a
 * merge by fusing what follows it into each merged path (stateless stages are per record, so a
 * copy per path computes the same). A window operator's partial half ends the vertex that feeds
 * it, behind a shuffle edge to its final half; a join has an edge per side. Vertices are
 * numbered in topological order, so edges only go forward. A {@code topK} is planned as a window
 * aggregation whose final half ranks the keys of each window instead of emitting each. A stage
 * whose bad records go to a dead-letter sink ends its chain with a fork that splits them off to
 * that sink ({@link TailSpec.Fork#deadLetters}): a sink of the plan, checkpointed like any other.
 */
public final class Planner {

    /** The payload of a {@code topK} stage: the aggregation, then what its final half emits. */
    public record TopK(AggregateOp<?, ?, ?> op, WindowOutput.TopK output) { }

    /** The payload of a window join stage: each side's aggregation, which keys it emits and how it combines them. */
    public record Join(AggregateOp<?, ?, ?> leftOp, AggregateOp<?, ?, ?> rightOp, JoinType type, JoinFunction<?, ?, ?, ?> joinFn) { }

    /**
     * The payload of a join over time ranges (interval or lookup): the panes its sides travel in,
     * each side's list aggregation of timestamped records, and what the final half does.
     */
    public record PaneJoin(long paneMs, AggregateOp<?, ?, ?> leftOp, AggregateOp<?, ?, ?> rightOp, Object spec) { }

    /** The payload of a static {@code lookup} stage. */
    public record LookupSpec(Function<?, ?> valueOf, Function<?, ?> keyFn, boolean inner, BiFunction<?, ?, ?> joinFn) {
        OpSpec toOp(OperatorInfo info, BadRecordPolicy badRecords) {
            return new OpSpec.Lookup(info, valueOf, keyFn, inner, joinFn, badRecords);
        }
    }

    /** The payload of an exchange stage: how it spreads records, and their codec (null: one JVM, no snapshots). */
    public record Exchange(TailSpec.Spread spread, Codec<?> codec) { }

    /** An interval join's bounds and function. */
    public record Interval(long lowerMs, long upperMs, JoinFunction<?, ?, ?, ?> joinFn) { }

    /** The payload of a process stage: the function, its declared states and its input records' codec (null: one JVM). */
    public record Process(KeyedProcessFunction<?, ?, ?> fn, List<StateDescriptor<?>> states, Codec<?> recordCodec) { }

    /** A lookup join's type, the table's value function and the join function. */
    public record Lookup(JoinType type, Function<?, ?> valueFn, JoinFunction<?, ?, ?, ?> joinFn) { }

    /** The most paths through merges to one stage: each path is a fused copy of what follows. */
    static final int MAX_PATHS = 64;

    private final int parallelism;
    private final Routing routing;
    private final Progress progress;
    /** The job's bad-record policy for stages that set none of their own. */
    private final BadRecordPolicy badRecords;
    /**
     * Per dead-letter sink, how many sink tails write to it (one per stage and path that uses it),
     * and how many were planned so far: its writers are numbered across all of them, as a sink's
     * are across the copies of a merge, so that none collide.
     */
    private final Map<SinkFactory<?>, Integer> deadLetterTails = new IdentityHashMap<>();
    private final Map<SinkFactory<?>, Integer> deadLetterTailsMade = new IdentityHashMap<>();
    private final Map<StageNode, Integer> vertexOf = new IdentityHashMap<>();
    private final Map<StageNode, Integer> reach = new IdentityHashMap<>();
    private final Map<StageNode, Integer> copiesMade = new IdentityHashMap<>();
    private final List<ShuffleEdge> edges = new ArrayList<>();
    /** One unstamping wrapper per late-record sink of session and count windows: the job numbers a sink's writers by its identity. */
    private final Map<SinkFactory<?>, SinkFactory<?>> unstamped = new IdentityHashMap<>();
    private int vertex;

    private Planner(int parallelism, Routing routing, Progress progress, BadRecordPolicy badRecords) {
        this.parallelism = parallelism;
        this.routing = routing;
        this.progress = progress;
        this.badRecords = badRecords;
    }

    /** Plans the graph that {@code sources} start; a stage that feeds nothing, or a cycle, is refused naming the stage. */
    public static PhysicalPlan plan(List<StageNode> sources, int parallelism, Routing routing, Progress progress) {
        return plan(sources, parallelism, routing, progress, BadRecordPolicy.fail());
    }

    /** {@link #plan(List, int, Routing, Progress)} with {@code badRecords} for the user functions of stages that set no policy. */
    public static PhysicalPlan plan(List<StageNode> sources, int parallelism, Routing routing, Progress progress, BadRecordPolicy badRecords) {
        return new Planner(parallelism, routing, progress, badRecords).plan(sources);
    }

    private PhysicalPlan plan(List<StageNode> sources) {
        List<StageNode> heads = new ArrayList<>();
        List<StageNode> order = topologicalOrder(sources);
        requireDistinctNames(order);
        for (StageNode n : order) {
            if (isHead(n)) {
                vertexOf.put(n, heads.size());
                heads.add(n);
                reach.put(n, 1);
            } else {
                int paths = n.upstreams().stream().mapToInt(reach::get).sum();
                if (paths > MAX_PATHS) {
                    // every merge fuses what follows it into each merged path: merges of merges multiply the copies
                    throw new IllegalStateException(n.info().name() + " is reached along " + paths + " paths through merges (at most "
                            + MAX_PATHS + "): merge fewer times, or put a window or an exchange (rebalance) between the merges");
                }
                reach.put(n, paths);
            }
        }
        countDeadLetterTails(order);
        List<VertexPlan> vertices = new ArrayList<>();
        for (StageNode head : heads) {
            vertex = vertexOf.get(head);
            TailSpec.Branch body = after(head);
            vertices.add(new VertexPlan(vertex, parallelism, headSpec(head), body.chain(), body.tail()));
        }
        return new PhysicalPlan(vertices, edges);
    }

    /**
     * A name given with {@code named(...)} identifies a stage's state in checkpoints (its stable
     * operator id), so two stages of one name are refused, naming both call sites.
     */
    private static void requireDistinctNames(List<StageNode> nodes) {
        Map<String, StageNode> named = new HashMap<>();
        for (StageNode n : nodes) {
            String label = n.info().label();
            StageNode other = label == null ? null : named.putIfAbsent(label, n);
            if (other != null && other != n) {
                throw new IllegalArgumentException("two stages are named '" + label + "': " + other.info().kind() + " at "
                        + other.info().callSite() + " and " + n.info().kind() + " at " + n.info().callSite()
                        + "; a name identifies a stage's state in checkpoints, so give each stage its own name");
            }
        }
    }

    /** The bad-record policy of stage {@code n}'s user function: its own, else the job's. */
    private BadRecordPolicy badRecords(StageNode n) {
        return n.badRecords() != null ? n.badRecords() : badRecords;
    }

    /**
     * Counts the sink tails of each dead-letter sink ({@link #deadLetterTails}); a dead-letter
     * sink that is also a stage's output ({@code writeTo}, late records) is refused, naming the
     * call that set the policy: the two would write the same writers.
     */
    private void countDeadLetterTails(List<StageNode> order) {
        Map<SinkFactory<?>, StageNode> outputs = new IdentityHashMap<>();
        for (StageNode n : order) {
            if (n.kind() == StageNode.Kind.SINK || n.kind() == StageNode.Kind.LATE_OUTPUT) {
                outputs.putIfAbsent((SinkFactory<?>) n.payload(), n);
            }
        }
        for (StageNode n : order) {
            if (n.takesBadRecordPolicy() && badRecords(n) instanceof BadRecordPolicy.DeadLetters d) {
                StageNode other = outputs.get(d.sink());
                if (other != null) {
                    throw new IllegalArgumentException((n.badRecordsCall() != null ? n.badRecordsCall()
                            : "JobConfig.onBadRecord(dead-letter), the default of " + n.info().name()) + ": its dead-letter sink ("
                            + d.sink().describe() + ") is also the output of " + other.info().name()
                            + "; give dead letters a sink of their own");
                }
                deadLetterTails.merge(d.sink(), reach.get(n), Integer::sum);
            }
        }
    }

    /**
     * What follows stage {@code n} in its vertex; behind a stage whose bad records go to a
     * dead-letter sink, a fork whose first branch takes the records and whose second the stage's
     * dead letters, written by that sink.
     */
    private TailSpec.Branch after(StageNode n) {
        TailSpec.Branch rest = walk(n);
        if (!n.takesBadRecordPolicy() || !(badRecords(n) instanceof BadRecordPolicy.DeadLetters d)) {
            return rest;
        }
        int copy = deadLetterTailsMade.merge(d.sink(), 1, Integer::sum) - 1;
        OperatorInfo info = new OperatorInfo("dead-letters", n.info().callSite(),
                n.info().label() == null ? null : n.info().label() + "-dead-letters");
        TailSpec.Sink sink = new TailSpec.Sink(info, d.sink(), copy, deadLetterTails.get(d.sink()));
        return new TailSpec.Branch(List.of(), new TailSpec.Fork(OperatorInfo.of("dead-letter-fork", n.info().callSite()),
                List.of(rest, new TailSpec.Branch(List.of(), sink)), true));
    }

    private static boolean isHead(StageNode n) {
        return switch (n.kind()) {
            case SOURCE, EXCHANGE, AGGREGATE, TOP_K, JOIN, INTERVAL_JOIN, LOOKUP_JOIN, PROCESS -> true;
            default -> false;
        };
    }

    /** Every stage reachable from the sources, each after all its upstreams (Kahn); a stage on a cycle is refused. */
    private static List<StageNode> topologicalOrder(List<StageNode> sources) {
        Map<StageNode, Integer> waiting = new IdentityHashMap<>();
        Deque<StageNode> todo = new ArrayDeque<>(sources);
        List<StageNode> seen = new ArrayList<>();
        Map<StageNode, Boolean> known = new IdentityHashMap<>();
        while (!todo.isEmpty()) { // everything reachable, to count each stage's upstreams
            StageNode n = todo.pop();
            if (known.put(n, Boolean.TRUE) == null) {
                seen.add(n);
                waiting.put(n, n.upstreams().size());
                todo.addAll(n.downstreams());
            }
        }
        List<StageNode> order = new ArrayList<>();
        Deque<StageNode> ready = new ArrayDeque<>();
        for (StageNode s : sources) {
            if (waiting.get(s) == 0 && !ready.contains(s)) {
                ready.add(s);
            }
        }
        while (!ready.isEmpty()) {
            StageNode n = ready.poll();
            order.add(n);
            for (StageNode d : n.downstreams()) {
                if (waiting.merge(d, -1, Integer::sum) == 0) {
                    ready.add(d);
                }
            }
        }
        if (order.size() != seen.size()) {
            List<String> cycle = new ArrayList<>();
            for (StageNode n : seen) {
                if (waiting.get(n) > 0) {
                    cycle.add(n.info().name());
                }
            }
            throw new IllegalStateException("the pipeline has a cycle through " + String.join(", ", cycle)
                    + ": a stage cannot feed its own upstream");
        }
        return order;
    }

    /** What follows {@code from} in its vertex: one downstream stage continues the chain, several fork it. */
    private TailSpec.Branch walk(StageNode from) {
        List<StageNode> next = from.downstreams();
        if (next.isEmpty()) {
            String hint = switch (from.kind()) {
                case KEY_BY -> "follow it with window(...), a join, process(...) or toTable(...)";
                case WINDOW, LATE_OUTPUT, LATENESS, EARLY_RESULTS -> "follow it with aggregate(...), reduce(...), topK(...) or a join";
                case TABLE -> "look it up with lookupJoin(...)";
                default -> "end it with writeTo(...)";
            };
            throw new IllegalStateException(from.info().name() + " feeds nothing: " + hint + " (every stage must reach a sink or a"
                    + " window operator)");
        }
        if (next.size() == 1) {
            return enterFrom(next.get(0), from);
        }
        List<TailSpec.Branch> branches = new ArrayList<>();
        for (StageNode d : next) {
            branches.add(enterFrom(d, from));
        }
        return new TailSpec.Branch(List.of(), new TailSpec.Fork(OperatorInfo.of("fork", from.info().callSite()), branches));
    }

    /**
     * {@code n} reached from {@code from}; behind a process stage with side outputs, a reader of
     * the main output first drops the side outputs' items.
     */
    private TailSpec.Branch enterFrom(StageNode n, StageNode from) {
        if (from.kind() == StageNode.Kind.PROCESS && n.kind() != StageNode.Kind.SIDE_OUTPUT
                && from.downstreams().stream().anyMatch(d -> d.kind() == StageNode.Kind.SIDE_OUTPUT)) {
            Predicate<Object> main = item -> !(item instanceof SideOutputItem);
            return prepend(new OpSpec.Filter(OperatorInfo.of("main-output", from.info().callSite()), main), enter(n, from));
        }
        return enter(n, from);
    }

    /** {@code n} reached from {@code from}: its operator, then what follows it. */
    private TailSpec.Branch enter(StageNode n, StageNode from) {
        return switch (n.kind()) {
            case MAP -> prepend(new OpSpec.Map(n.info(), (Function<?, ?>) n.payload(), badRecords(n)), after(n));
            case FILTER -> prepend(new OpSpec.Filter(n.info(), (Predicate<?>) n.payload(), badRecords(n)), after(n));
            case FLAT_MAP -> prepend(flatMap(n), after(n));
            case LOOKUP -> prepend(((LookupSpec) n.payload()).toOp(n.info(), badRecords(n)), after(n));
            case TIMESTAMPS -> prepend(new OpSpec.Timestamps(n.info(), (ToLongFunction<?>) n.payload(), n.argument(), badRecords(n)),
                    after(n));
            case KEY_BY, WINDOW, LATE_OUTPUT, LATENESS, EARLY_RESULTS, MERGE, TABLE -> walk(n);
            case SIDE_OUTPUT -> {
                String tag = ((OutputTag<?>) n.payload()).name();
                Predicate<Object> mine = item -> item instanceof SideOutputItem s && s.tag().equals(tag);
                Function<Object, Object> unwrap = item -> ((SideOutputItem) item).value();
                yield prepend(new OpSpec.Filter(n.info(), mine), prepend(new OpSpec.Map(n.info(), unwrap), walk(n)));
            }
            case PROCESS -> {
                ShuffleEdge edge = new ShuffleEdge(edges.size(), vertex, vertexOf.get(n), 0);
                edges.add(edge);
                Process p = (Process) n.payload();
                yield new TailSpec.Branch(List.of(), new TailSpec.Exchange(n.info(), TailSpec.Spread.KEY, p.recordCodec(), edge.id(),
                        processKey(n)));
            }
            // a session or count window's partial half needs each record's time: records come stamped
            case AGGREGATE, TOP_K -> perKeyWindow(n) == null ? partial(n, 0)
                    : prepend(new OpSpec.Stamp(OperatorInfo.of("stamp", n.info().callSite())), partial(n, 0));
            case EXCHANGE -> {
                ShuffleEdge edge = new ShuffleEdge(edges.size(), vertex, vertexOf.get(n), 0);
                edges.add(edge);
                Exchange x = (Exchange) n.payload();
                yield new TailSpec.Branch(List.of(), new TailSpec.Exchange(n.info(), x.spread(), x.codec(), edge.id()));
            }
            case JOIN -> partial(n, n.upstreams().get(0) == from ? 0 : 1);
            case INTERVAL_JOIN, LOOKUP_JOIN -> prepend(new OpSpec.Stamp(OperatorInfo.of("stamp", n.info().callSite())),
                    partial(n, n.upstreams().get(0) == from ? 0 : 1));
            case SINK -> {
                int copy = copiesMade.merge(n, 1, Integer::sum) - 1;
                yield new TailSpec.Branch(List.of(), new TailSpec.Sink(n.info(), (SinkFactory<?>) n.payload(), copy, reach.get(n)));
            }
            case SOURCE -> throw new IllegalStateException(n.info().name() + ": a source cannot follow another stage");
        };
    }

    private static TailSpec.Branch prepend(OpSpec op, TailSpec.Branch rest) {
        List<OpSpec> chain = new ArrayList<>();
        chain.add(op);
        chain.addAll(rest.chain());
        return new TailSpec.Branch(chain, rest.tail());
    }

    /** The partial half of window operator {@code n}'s input {@code input}, feeding a new edge to {@code n}'s vertex. */
    private TailSpec.Branch partial(StageNode n, int input) {
        ShuffleEdge edge = new ShuffleEdge(edges.size(), vertex, vertexOf.get(n), input);
        edges.add(edge);
        OperatorInfo info = n.upstreams().size() < 2 ? n.info()
                : OperatorInfo.of(n.info().kind() + (input == 0 ? "-left" : "-right"), n.info().callSite());
        return new TailSpec.Branch(List.of(), new TailSpec.PartialWindow(info, aggregation(n, input), edge.id()));
    }

    private HeadSpec headSpec(StageNode n) {
        return switch (n.kind()) {
            case SOURCE -> new HeadSpec.Source(n.info(), (SourceFactory<?>) n.payload());
            case EXCHANGE -> new HeadSpec.Exchange(n.info(), ((Exchange) n.payload()).spread());
            case AGGREGATE -> rethrowNamed(n, () -> new HeadSpec.FinalWindow(n.info(), aggregation(n, 0), output(n)));
            case TOP_K -> new HeadSpec.FinalWindow(n.info(), aggregation(n, 0), ((TopK) n.payload()).output());
            case JOIN -> {
                Join j = (Join) n.payload();
                try {
                    yield new HeadSpec.WindowJoin(n.info(), aggregation(n, 0), aggregation(n, 1), new JoinSpec(j.type(), j.joinFn()));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(n.info().name() + ": " + e.getMessage(), e);
                }
            }
            case INTERVAL_JOIN -> {
                Interval i = (Interval) ((PaneJoin) n.payload()).spec();
                yield rethrowNamed(n, () -> new HeadSpec.IntervalJoin(n.info(), aggregation(n, 0), aggregation(n, 1), i.lowerMs(),
                        i.upperMs(), i.joinFn()));
            }
            case LOOKUP_JOIN -> {
                Lookup l = (Lookup) ((PaneJoin) n.payload()).spec();
                yield rethrowNamed(n, () -> new HeadSpec.LookupJoin(n.info(), aggregation(n, 0), aggregation(n, 1), l.type(), l.valueFn(),
                        l.joinFn()));
            }
            case PROCESS -> {
                Process p = (Process) n.payload();
                List<OutputTag<?>> tags = new ArrayList<>();
                for (StageNode d : n.downstreams()) {
                    if (d.kind() == StageNode.Kind.SIDE_OUTPUT) {
                        tags.add((OutputTag<?>) d.payload());
                    }
                }
                yield rethrowNamed(n, () -> new HeadSpec.KeyedProcess(n.info(), processKey(n), p.fn(), p.states(), tags, n.timestamped(),
                        badRecords(n)));
            }
            default -> throw new IllegalStateException(n.info().name() + " does not head a vertex");
        };
    }

    /** The session or count window just upstream of aggregation {@code n}, or null for a window aligned to the epoch. */
    private static PerKeyWindow perKeyWindow(StageNode n) {
        StageNode u = n.upstreams().get(0);
        while (u.kind().windowSetting()) {
            u = u.upstream();
        }
        return u.kind() == StageNode.Kind.WINDOW && u.payload() instanceof PerKeyWindow w ? w : null;
    }

    /**
     * What aggregation {@code n}'s final half emits: one result per key and window (upserts of them
     * when the window allows lateness or has early results), per session, or per count window.
     */
    private static WindowOutput output(StageNode n) {
        AggregateOp<?, ?, ?> op = (AggregateOp<?, ?, ?>) n.payload();
        return switch (perKeyWindow(n)) {
            case null -> upserting(n) ? new WindowOutput.Upserts() : new WindowOutput.PerKey();
            case SessionWindow s -> new WindowOutput.Sessions(s.gapMs(), op);
            case CountWindow c -> new WindowOutput.Counts(c.size(), op);
        };
    }

    /** Whether the window of aggregation {@code n} has allowed lateness or early results: its rows are upserts. */
    private static boolean upserting(StageNode n) {
        for (StageNode u = n.upstreams().get(0); u.kind().windowSetting(); u = u.upstream()) {
            if (u.kind() != StageNode.Kind.LATE_OUTPUT) {
                return true;
            }
        }
        return false;
    }

    /** The key of process stage {@code n}: the {@code keyBy} just before it. */
    private static KeySpec processKey(StageNode n) {
        StageNode u = n.upstream();
        if (u == null || u.kind() != StageNode.Kind.KEY_BY || u.payload() instanceof KeySpec.NoKey) {
            throw new IllegalStateException(n.info().name() + " needs keyBy(...) just before it");
        }
        return (KeySpec) u.payload();
    }

    private static HeadSpec rethrowNamed(StageNode n, Supplier<HeadSpec> spec) {
        try {
            return spec.get();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(n.info().name() + ": " + e.getMessage(), e);
        }
    }

    /**
     * The aggregation of window operator {@code n}'s input {@code input}: the key and the window
     * (and where late records go) are the stages just upstream of that input.
     */
    private WindowAggregation aggregation(StageNode n, int input) {
        KeySpec key = null;
        WindowDefinition window = null;
        SinkFactory<?> late = null;
        long lateness = 0;
        long early = 0;
        boolean panes = n.kind() == StageNode.Kind.INTERVAL_JOIN || n.kind() == StageNode.Kind.LOOKUP_JOIN;
        for (StageNode u = n.upstreams().get(input); u != null && key == null; u = u.upstream()) {
            switch (u.kind()) {
                case LATE_OUTPUT -> late = (SinkFactory<?>) u.payload();
                case LATENESS -> lateness = u.argument();
                case EARLY_RESULTS -> early = u.argument();
                case WINDOW -> window = u.payload() instanceof WindowDefinition w ? w : null;
                case KEY_BY -> key = (KeySpec) u.payload();
                case TABLE -> { }
                default -> throw new IllegalStateException(n.info().name() + " needs keyBy(...)" + (panes ? "" : ".window(...)")
                        + " before it, found " + u.info().name());
            }
        }
        if (panes) {
            long pane = ((PaneJoin) n.payload()).paneMs();
            window = new WindowDefinition(pane, pane);
            key = key == null ? null : ofStamped(key);
        }
        PerKeyWindow perKey = n.kind() == StageNode.Kind.AGGREGATE ? perKeyWindow(n) : null;
        if (perKey != null) {
            // parts per pane of event time, stamped records, the user's aggregation wrapped (WindowOutput.Sessions, Counts)
            long pane = perKey instanceof SessionWindow s ? new WindowOutput.Sessions(s.gapMs(), (AggregateOp<?, ?, ?>) n.payload())
                    .paneMs() : WindowOutput.Counts.PANE_MS;
            window = new WindowDefinition(pane, pane);
            key = key == null ? null : ofStamped(key);
            // its records come stamped (Timestamped): the late ones reach the user's sink as they were
            late = late == null ? null : unstamped.computeIfAbsent(late, UnstampedSink::new);
        }
        if (key == null || window == null) {
            throw new IllegalStateException(n.info().name() + " needs keyBy(...).window(...) before it");
        }
        AggregateOp<?, ?, ?> op = switch (n.kind()) {
            case TOP_K -> ((TopK) n.payload()).op();
            case JOIN -> input == 0 ? ((Join) n.payload()).leftOp() : ((Join) n.payload()).rightOp();
            case INTERVAL_JOIN, LOOKUP_JOIN -> input == 0 ? ((PaneJoin) n.payload()).leftOp() : ((PaneJoin) n.payload()).rightOp();
            default -> switch (perKey) {
                case null -> (AggregateOp<?, ?, ?>) n.payload();
                case SessionWindow s -> SessionPart.aggregation((AggregateOp<?, ?, ?>) n.payload());
                case CountWindow c -> CountPart.aggregation((AggregateOp<?, ?, ?>) n.payload());
            };
        };
        // a top-k ranks a whole window on one instance: its shuffle routes by window (AIR) whatever the job's
        // routing, since under KEY each final instance holds only the keys it owns (explain shows it)
        // a join over time ranges pairs records of different panes: a key's panes must all meet on one instance (KEY)
        // a session or count window has no fixed start to route by: a key's windows all on its owner (KEY), whatever the job's routing
        Routing routed = n.kind() == StageNode.Kind.TOP_K ? Routing.AIR : panes || perKey != null ? Routing.KEY : routing;
        try {
            return new WindowAggregation(window, key, op, routed, progress, late, lateness, early);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(n.info().name() + ": " + e.getMessage(), e);
        }
    }

    /** The key of a stamped record (its partial sees {@code Timestamped}): the user's key of the record inside. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static KeySpec ofStamped(KeySpec key) {
        return switch (key) {
            case KeySpec.LongKey k -> {
                ToLongFunction<Object> fn = (ToLongFunction) k.keyFn();
                yield new KeySpec.LongKey(k.info(), (Timestamped<Object> t) -> fn.applyAsLong(t.value()));
            }
            case KeySpec.ObjectKey k -> {
                Function<Object, ?> fn = (Function) k.keyFn();
                yield new KeySpec.ObjectKey(k.info(), (Timestamped<Object> t) -> fn.apply(t.value()), k.keyType());
            }
            case KeySpec.NoKey k -> k;
        };
    }

    @SuppressWarnings("unchecked")
    private OpSpec flatMap(StageNode n) {
        return new OpSpec.FlatMap(n.info(), (Function<?, ? extends Iterable<?>>) n.payload(), badRecords(n));
    }
}
