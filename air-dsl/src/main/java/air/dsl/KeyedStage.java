package air.dsl;

import air.dsl.impl.CallSite;
import air.dsl.impl.MapStateful;
import air.dsl.impl.Planner;
import air.dsl.impl.StageNode;
import air.dsl.impl.aggregate.ListOp;
import air.runtime.api.AggregateOp;
import air.runtime.api.Codec;
import air.runtime.api.JoinFunction;
import air.runtime.api.JoinType;
import air.runtime.api.KeyedProcessFunction;
import air.runtime.api.PerKeyWindow;
import air.runtime.api.StateDescriptor;
import air.runtime.api.StatefulMapFunction;
import air.runtime.api.Timestamped;
import air.runtime.api.ValueState;
import air.runtime.api.WindowDefinition;
import air.runtime.plan.OperatorInfo;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A stream keyed by {@code K}: next an event-time window, an interval join with another keyed
 * stream, a lookup join against a table, a table itself ({@link #toTable}), or a keyed process
 * function with per-key state and timers ({@link #process}, {@link #mapStateful}).
 */
public final class KeyedStage<K, T> {

    private final Pipeline pipeline;
    private final StageNode node;

    KeyedStage(Pipeline pipeline, StageNode node) {
        this.pipeline = pipeline;
        this.node = node;
    }

    /** Groups each key's records into event-time windows; needs {@code withTimestamps} upstream. */
    public WindowedStage<K, T> window(WindowDefinition window) {
        String site = CallSite.ofCaller();
        requireWindowable(pipeline, node, window, site);
        StageNode n = new StageNode(StageNode.Kind.WINDOW, node, OperatorInfo.of("window", site), window, 0, true);
        node.attach(n);
        return new WindowedStage<>(pipeline, n);
    }

    /**
     * Groups each key's records into windows cut from the key's own records: sessions
     * ({@link Windows#session}) or counts ({@link Windows#count}). Needs {@code withTimestamps}
     * upstream (records travel to their key's owner in panes of event time). Follow it with
     * {@code aggregate} or {@code reduce}; a top-k or a join over these windows is refused.
     */
    public WindowedStage<K, T> window(PerKeyWindow window) {
        String site = CallSite.ofCaller();
        requireWindowable(pipeline, node, window, site);
        StageNode n = new StageNode(StageNode.Kind.WINDOW, node, OperatorInfo.of("window", site), window, 0, true);
        node.attach(n);
        return new WindowedStage<>(pipeline, n);
    }

    /** A {@code window(...)} call at {@code site} after {@code node}: the pipeline open, a definition, timestamps upstream. */
    static void requireWindowable(Pipeline pipeline, StageNode node, Object window, String site) {
        pipeline.checkOpen("window", site);
        Objects.requireNonNull(window, "window(definition) at " + site + ": definition is null");
        if (!node.timestamped()) {
            throw new IllegalStateException("window(" + window + ") at " + site
                    + ": the stream has no event timestamps; call withTimestamps(timestampFn, allowedDisorderMs) before "
                    + node.info().name());
        }
    }

    Pipeline pipeline() {
        return pipeline;
    }

    StageNode node() {
        return node;
    }

    /** How long an interval join's records travel together: its panes, of at least 10 ms and at most 10 s. */
    static long intervalPaneMs(long lowerMs, long upperMs) {
        return Math.max(10, Math.min(10_000, lowerMs + upperMs));
    }

    /** The widest interval join bound: times stay far from overflow when it is added or subtracted. */
    static final long MAX_BOUND_MS = 100L * 366 * 24 * 3600 * 1000;

    /** A lookup join's panes: records wait for up to this much event time before they are looked up. */
    public static final long LOOKUP_PANE_MS = 100;

    /**
     * An interval join: every pair of a record {@code a} of this stream and a record {@code b} of
     * {@code other} with the same key and {@code a}'s event time in
     * {@code [b.ts - lowerMs, b.ts + upperMs]}, given to {@code joinFn(key, a, b)}, each pair
     * once, with event time {@code max(a.ts, b.ts)}. Both streams need timestamps. Records are
     * kept only while progress still allows a match: state is trimmed as progress passes. Both
     * sides route by key (under either routing: a key's records of every moment must meet). Without
     * codecs the buffered records cross peers and checkpoints through the serializer (Kryo); the
     * overload with codecs is shorter and faster.
     */
    public <U, O> Stage<O> intervalJoin(KeyedStage<K, U> other, long lowerMs, long upperMs,
                                        JoinFunction<? super K, ? super T, ? super U, ? extends O> joinFn) {
        return intervalJoin(other, lowerMs, upperMs, joinFn, null, null);
    }

    /** {@link #intervalJoin(KeyedStage, long, long, JoinFunction)} whose buffered records cross peers and checkpoints by these codecs. */
    public <U, O> Stage<O> intervalJoin(KeyedStage<K, U> other, long lowerMs, long upperMs,
                                        JoinFunction<? super K, ? super T, ? super U, ? extends O> joinFn, Codec<T> leftCodec,
                                        Codec<U> rightCodec) {
        String site = CallSite.ofCaller();
        pipeline.checkOpen("intervalJoin", site);
        String call = "intervalJoin(other, lowerMs=" + lowerMs + ", upperMs=" + upperMs + ", joinFn) at " + site;
        Objects.requireNonNull(other, call + ": other is null");
        Objects.requireNonNull(joinFn, call + ": joinFn is null");
        if (lowerMs < 0 || upperMs < 0 || lowerMs > MAX_BOUND_MS || upperMs > MAX_BOUND_MS) {
            throw new IllegalArgumentException(call + ": lowerMs and upperMs must be in [0, " + MAX_BOUND_MS + "] (about a century)");
        }
        pipeline.requireOwn(other.pipeline, "intervalJoin", site);
        if (other.node == node) {
            throw new IllegalArgumentException(call + ": a keyed stream cannot be joined with itself; key it twice (the same stage may"
                    + " feed both keyBy calls)");
        }
        requireJoinable(call, other.node);
        StageNode j = new StageNode(StageNode.Kind.INTERVAL_JOIN, List.of(node, other.node), OperatorInfo.of("interval-join", site),
                new Planner.PaneJoin(intervalPaneMs(lowerMs, upperMs), timestampedList(leftCodec), timestampedList(rightCodec),
                        new Planner.Interval(lowerMs, upperMs, joinFn)), 0, true);
        node.attach(j);
        other.node.attach(j);
        return new Stage<>(pipeline, j);
    }

    /**
     * This keyed stream as the changelog of a table: each record is a change of its key's value,
     * {@code valueFn(record)}; a null value deletes the key (a tombstone, as in Kafka Streams).
     * A {@link #lookupJoin} reads the table as of each looked-up record's event time.
     */
    public <V> Table<K, V> toTable(Function<? super T, ? extends V> valueFn) {
        return toTable(valueFn, null);
    }

    /** {@link #toTable(Function)} whose changes cross peers and checkpoints by {@code changeCodec}. */
    public <V> Table<K, V> toTable(Function<? super T, ? extends V> valueFn, Codec<T> changeCodec) {
        String site = CallSite.ofCaller();
        pipeline.checkOpen("toTable", site);
        Objects.requireNonNull(valueFn, "toTable(valueFn) at " + site + ": valueFn is null");
        if (!node.timestamped()) {
            throw new IllegalStateException("toTable at " + site + ": the changelog has no event timestamps; call withTimestamps before "
                    + node.info().name() + " (a lookup reads the table as of each record's event time)");
        }
        StageNode t = new StageNode(StageNode.Kind.TABLE, node, OperatorInfo.of("table", site), new Table.Spec(valueFn,
                timestampedList(changeCodec)), 0, true);
        node.attach(t);
        return new Table<>(pipeline, t);
    }

    /**
     * A lookup join against {@code table}: each record of this stream gets its key's value in the
     * table as of the record's event time (the latest change at or before it; a change before a
     * record of the same time), {@code joinFn(key, record, value)}, emitted with the record's
     * event time. {@code INNER} drops a record whose key has no value, {@code LEFT} passes null.
     * Records wait until their pane ({@value #LOOKUP_PANE_MS} ms of event time) is complete on both
     * streams. For a table that never changes, {@link Stage#lookup} needs no second stream.
     */
    public <V, O> Stage<O> lookupJoin(Table<K, V> table, JoinType type, JoinFunction<? super K, ? super T, ? super V, ? extends O> joinFn) {
        return lookupJoin(table, type, joinFn, null);
    }

    /** {@link #lookupJoin(Table, JoinType, JoinFunction)} whose waiting records cross peers and checkpoints by {@code codec}. */
    public <V, O> Stage<O> lookupJoin(Table<K, V> table, JoinType type, JoinFunction<? super K, ? super T, ? super V, ? extends O> joinFn,
                                      Codec<T> codec) {
        String site = CallSite.ofCaller();
        pipeline.checkOpen("lookupJoin", site);
        String call = "lookupJoin(table, " + type + ", joinFn) at " + site;
        Objects.requireNonNull(table, call + ": table is null");
        Objects.requireNonNull(type, "lookupJoin(table, type, joinFn) at " + site + ": type is null");
        Objects.requireNonNull(joinFn, call + ": joinFn is null");
        if (type != JoinType.INNER && type != JoinType.LEFT) {
            throw new IllegalArgumentException(call + ": a lookup join is INNER or LEFT (every record once, with its value or null)");
        }
        pipeline.requireOwn(table.pipeline(), "lookupJoin", site);
        requireJoinable(call, table.node().upstream());
        Table.Spec spec = (Table.Spec) table.node().payload();
        StageNode j = new StageNode(StageNode.Kind.LOOKUP_JOIN, List.of(node, table.node()), OperatorInfo.of("lookup-join", site),
                new Planner.PaneJoin(LOOKUP_PANE_MS, timestampedList(codec), spec.changes(), new Planner.Lookup(type, spec.valueFn(), joinFn)),
                0, true);
        node.attach(j);
        table.node().attach(j);
        return new Stage<>(pipeline, j);
    }

    /**
     * A keyed process function: {@code fn.process(record, ctx)} for every record with its key in
     * scope, {@code fn.onTimer(...)} for every timer that fires. It keeps per-key state declared by
     * {@code states} (values, lists, maps; read with {@code ctx.state(descriptor)}), registers
     * event-time timers (they fire once the input is complete past them: needs
     * {@code withTimestamps} upstream) and processing-time timers (the job's
     * {@code JobConfig.timeSource}), and emits zero or more records per call, each
     * with the event time of the record or event-time timer being handled; side outputs
     * ({@code ctx.output(tag, value)}) are read with {@link Stage#sideOutput}. Records travel by
     * key (under either routing) to the instance that owns the key, hashed as KEY routing hashes.
     * Without a record codec records cross peers through the serializer (Kryo), and state without
     * codecs goes to checkpoints and replicas the same way; {@link #process(KeyedProcessFunction, Codec,
     * StateDescriptor[])} and codecs on the descriptors are shorter and faster. See docs/dsl.md, "Process functions".
     */
    public <O> Stage<O> process(KeyedProcessFunction<? super K, ? super T, O> fn, StateDescriptor<?>... states) {
        return process("process", CallSite.ofCaller(), fn, null, states);
    }

    /** {@link #process(KeyedProcessFunction, StateDescriptor[])} whose input records cross peers by {@code recordCodec}. */
    public <O> Stage<O> process(KeyedProcessFunction<? super K, ? super T, O> fn, Codec<T> recordCodec, StateDescriptor<?>... states) {
        String site = CallSite.ofCaller();
        Objects.requireNonNull(recordCodec, "process(fn, recordCodec, states) at " + site + ": recordCodec is null");
        return process("process", site, fn, recordCodec, states);
    }

    /**
     * Jet's {@code mapStateful}: per key one state object, made by {@code createFn} at the key's
     * first record and changed in place by {@code mapFn(state, key, record)}, whose result is
     * emitted (null: nothing) with the record's event time. State and records cross peers and
     * checkpoints through the serializer (Kryo); the overload with codecs is shorter and faster.
     */
    public <S, R> Stage<R> mapStateful(Supplier<? extends S> createFn, StatefulMapFunction<? super S, ? super K, ? super T, ? extends R> mapFn) {
        return mapStateful(CallSite.ofCaller(), createFn, null, null, mapFn);
    }

    /**
     * {@link #mapStateful(Supplier, StatefulMapFunction)} whose state is checkpointed and replicated by
     * {@code stateCodec} and whose records cross peers by {@code recordCodec}.
     */
    public <S, R> Stage<R> mapStateful(Supplier<? extends S> createFn, Codec<S> stateCodec, Codec<T> recordCodec,
                                       StatefulMapFunction<? super S, ? super K, ? super T, ? extends R> mapFn) {
        String site = CallSite.ofCaller();
        Objects.requireNonNull(stateCodec, "mapStateful(createFn, stateCodec, recordCodec, mapFn) at " + site + ": stateCodec is null");
        Objects.requireNonNull(recordCodec, "mapStateful(createFn, stateCodec, recordCodec, mapFn) at " + site + ": recordCodec is null");
        return mapStateful(site, createFn, stateCodec, recordCodec, mapFn);
    }

    private <S, R> Stage<R> mapStateful(String site, Supplier<? extends S> createFn, Codec<S> stateCodec, Codec<T> recordCodec,
                                        StatefulMapFunction<? super S, ? super K, ? super T, ? extends R> mapFn) {
        Objects.requireNonNull(createFn, "mapStateful at " + site + ": createFn is null");
        Objects.requireNonNull(mapFn, "mapStateful at " + site + ": mapFn is null");
        StateDescriptor<ValueState<S>> state = stateCodec == null ? StateDescriptor.value("mapStateful")
                : StateDescriptor.value("mapStateful", stateCodec);
        return process("mapStateful", site, new MapStateful<>(state, createFn, mapFn), recordCodec, state);
    }

    private <O> Stage<O> process(String call, String site, KeyedProcessFunction<? super K, ? super T, O> fn, Codec<T> recordCodec,
                                 StateDescriptor<?>... states) {
        pipeline.checkOpen(call, site);
        String named = call + "(...) at " + site;
        Objects.requireNonNull(fn, named + ": the function is null");
        Objects.requireNonNull(states, named + ": states is null");
        List<StateDescriptor<?>> declared = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (StateDescriptor<?> d : states) {
            Objects.requireNonNull(d, named + ": a state descriptor is null");
            if (!names.add(d.name())) {
                throw new IllegalArgumentException(named + ": two states are named '" + d.name() + "'; give each state its own name");
            }
            if (d.ttlMs() > 0 && !node.timestamped()) {
                throw new IllegalStateException(named + ": " + d + " has a time to live in event time, but the stream has no event"
                        + " timestamps; call withTimestamps(timestampFn, allowedDisorderMs) before " + node.info().name());
            }
            declared.add(d);
        }
        StageNode n = new StageNode(StageNode.Kind.PROCESS, node, OperatorInfo.of(call, site), new Planner.Process(fn, declared, recordCodec),
                0, node.timestamped());
        node.attach(n);
        return new Stage<>(pipeline, n);
    }

    /** Both sides of a join over time need timestamps and keys of one kind. */
    private void requireJoinable(String call, StageNode otherKey) {
        for (StageNode side : List.of(node, otherKey)) {
            if (!side.timestamped()) {
                throw new IllegalStateException(call + ": " + side.info().name() + " has no event timestamps; call"
                        + " withTimestamps(timestampFn, allowedDisorderMs) before it (a join over time needs both sides' times)");
            }
        }
        if (node.payload().getClass() != otherKey.payload().getClass()) {
            throw new IllegalArgumentException(call + ": one side is keyed by keyByLong and the other by keyBy (" + node.info().name()
                    + ", " + otherKey.info().name() + "); key both sides the same way");
        }
    }

    /** Lists of timestamped records, with their codec when the element codec is given. */
    private static <E> AggregateOp<Timestamped<E>, ?, List<Timestamped<E>>> timestampedList(Codec<E> elements) {
        return new ListOp<>(elements == null ? null : new Codec<Timestamped<E>>() {
            @Override
            public void write(Timestamped<E> value, WireOut out) {
                out.putLong(value.timestamp());
                elements.write(value.value(), out);
            }

            @Override
            public Timestamped<E> read(WireIn in) {
                long t = in.getLong();
                return new Timestamped<>(t, elements.read(in));
            }
        });
    }
}
