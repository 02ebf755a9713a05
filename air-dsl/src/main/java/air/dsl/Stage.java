package air.dsl;

import air.dsl.impl.CallSite;
import air.dsl.impl.Planner;
import air.dsl.impl.StageNode;
import air.runtime.api.BadRecordPolicy;
import air.runtime.api.Codec;
import air.runtime.api.EventTime;
import air.runtime.api.JoinType;
import air.runtime.api.OutputTag;
import air.runtime.api.SinkFactory;
import air.runtime.api.WindowDefinition;
import air.runtime.plan.KeySpec;
import air.runtime.plan.OperatorInfo;
import air.runtime.plan.TailSpec;
import air.runtime.serial.StableHash;
import air.runtime.serial.UnstableKeyException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * A stream of {@code T} records. Consecutive stateless stages fuse into one loop; {@code keyBy}
 * starts a keyed window aggregation or join, {@code window} an unkeyed one, whose records cross a
 * shuffle after local pre-aggregation. A stage may feed several stages (each sees every record)
 * and several sinks; {@code merge} combines two streams of one type.
 */
public final class Stage<T> {

    private final Pipeline pipeline;
    private final StageNode node;

    Stage(Pipeline pipeline, StageNode node) {
        this.pipeline = pipeline;
        this.node = node;
    }

    /**
     * Each record turned into {@code mapFn(record)}, which must not be null; the record keeps its
     * timestamp. Fused with its neighbours into one loop: no queue, no copy.
     */
    public <R> Stage<R> map(Function<? super T, ? extends R> mapFn) {
        return next("map", StageNode.Kind.MAP, mapFn, "mapFn", 0, node.timestamped());
    }

    /** The records for which {@code predicate} is true; fused with its neighbours like {@link #map}. */
    public Stage<T> filter(Predicate<? super T> predicate) {
        return next("filter", StageNode.Kind.FILTER, predicate, "predicate", 0, node.timestamped());
    }

    /** Zero or more records per input; a null iterable counts as empty. */
    public <R> Stage<R> flatMap(Function<? super T, ? extends Iterable<? extends R>> flatMapFn) {
        return next("flatMap", StageNode.Kind.FLAT_MAP, flatMapFn, "flatMapFn", 0, node.timestamped());
    }

    /**
     * Declares event time, once per pipeline: records may arrive up to {@code allowedDisorderMs}
     * behind the newest timestamp seen; older ones are late (dropped and counted in
     * {@code air.late.records}).
     */
    public Stage<T> withTimestamps(ToLongFunction<? super T> timestampFn, long allowedDisorderMs) {
        String site = CallSite.ofCaller();
        String call = "withTimestamps(timestampFn, allowedDisorderMs=" + allowedDisorderMs + ")";
        if (allowedDisorderMs < 0 || allowedDisorderMs > EventTime.MAX_SPAN) {
            throw new IllegalArgumentException(call + " at " + site + ": allowedDisorderMs must be in [0, EventTime.MAX_SPAN = "
                    + EventTime.MAX_SPAN + "]");
        }
        StageNode origin = node.timestampOrigin();
        if (origin != null) {
            throw new IllegalStateException(call + " at " + site + ": timestamps are already declared by "
                    + origin.info().name() + "; declare them once");
        }
        return next(call, site, StageNode.Kind.TIMESTAMPS, timestampFn, "timestampFn", allowedDisorderMs, true);
    }

    /**
     * Keys records by an object key: non-null, of any type that hashes the same on every JVM (String,
     * boxed numbers, enums, records, lists, or classes with equals and hashCode; see docs/dsl.md, "Keys
     * and serialization"). A key function's type is erased, so a key type that cannot be hashed stably
     * fails the job at its first record with such a key; {@link #keyBy(Function, Class)} refuses it here.
     */
    public <K> KeyedStage<K, T> keyBy(Function<? super T, ? extends K> keyFn) {
        return keyBy(CallSite.ofCaller(), keyFn, null);
    }

    /**
     * {@link #keyBy(Function)} with the key's class, checked now: a type whose keys cannot be hashed
     * the same on every JVM (an array, a class that inherits {@code Object.equals} or {@code hashCode},
     * a record with such a component) is refused at this call, naming it; the job is checked again
     * when it is submitted.
     */
    public <K> KeyedStage<K, T> keyBy(Function<? super T, ? extends K> keyFn, Class<K> keyType) {
        String site = CallSite.ofCaller();
        Objects.requireNonNull(keyType, "keyBy(keyFn, keyType) at " + site + ": keyType is null");
        try {
            StableHash.requireStable(keyType);
        } catch (UnstableKeyException e) {
            throw new IllegalArgumentException("keyBy(keyFn, " + keyType.getSimpleName() + ".class) at " + site + ": " + e.getMessage(), e);
        }
        return keyBy(site, keyFn, keyType);
    }

    private <K> KeyedStage<K, T> keyBy(String site, Function<? super T, ? extends K> keyFn, Class<K> keyType) {
        pipeline.checkOpen("keyBy", site);
        Objects.requireNonNull(keyFn, "keyBy(keyFn) at " + site + ": keyFn is null");
        OperatorInfo info = OperatorInfo.of("keyBy", site);
        return new KeyedStage<>(pipeline, attach(StageNode.Kind.KEY_BY, info, new KeySpec.ObjectKey(info, keyFn, keyType), 0));
    }

    /** Keys records by a primitive long key, kept in primitive maps (no boxing per record). */
    public KeyedStage<Long, T> keyByLong(ToLongFunction<? super T> keyFn) {
        String site = CallSite.ofCaller();
        pipeline.checkOpen("keyByLong", site);
        Objects.requireNonNull(keyFn, "keyByLong(keyFn) at " + site + ": keyFn is null");
        OperatorInfo info = OperatorInfo.of("keyByLong", site);
        return new KeyedStage<>(pipeline, attach(StageNode.Kind.KEY_BY, info, new KeySpec.LongKey(info, keyFn), 0));
    }

    /** Sends this stream to a sink, one writer per worker; a stream may go to several sinks. */
    public void writeTo(SinkFactory<? super T> sink) {
        String site = CallSite.ofCaller();
        pipeline.checkOpen("writeTo", site);
        Objects.requireNonNull(sink, "writeTo(sink) at " + site + ": sink is null");
        attach(StageNode.Kind.SINK, OperatorInfo.of("sink", site), sink, 0);
    }

    /**
     * This stream and {@code other} as one: every record of each, in no particular order between
     * them. Both must carry event timestamps or neither; after a merge, progress is the least of
     * both streams' (a window closes once both have passed it).
     */
    public Stage<T> merge(Stage<? extends T> other) {
        String site = CallSite.ofCaller();
        pipeline.checkOpen("merge", site);
        Objects.requireNonNull(other, "merge(other) at " + site + ": other is null");
        pipeline.requireOwn(other.pipeline, "merge", site);
        if (node.timestamped() != other.node.timestamped()) {
            StageNode with = node.timestamped() ? node : other.node;
            StageNode without = node.timestamped() ? other.node : node;
            throw new IllegalStateException("merge at " + site + ": " + with.info().name() + " carries event timestamps (declared by "
                    + with.timestampOrigin().info().name() + ") but " + without.info().name()
                    + " does not; call withTimestamps on both streams, or after the merge");
        }
        StageNode n = new StageNode(StageNode.Kind.MERGE, List.of(node, other.node), OperatorInfo.of("merge", site), null, 0,
                node.timestamped());
        node.attach(n);
        other.node.attach(n);
        return new Stage<>(pipeline, n);
    }

    /**
     * Groups the whole stream, unkeyed, into event-time windows; needs {@code withTimestamps}
     * upstream. Each worker pre-aggregates; under AIR routing window {@code k} is finalised on
     * instance {@code k mod N} of all N, so successive windows spread over every worker, while
     * under KEY routing there is a single key and so a single instance finalises every window.
     */
    public AllWindowedStage<T> window(WindowDefinition window) {
        String site = CallSite.ofCaller();
        KeyedStage.requireWindowable(pipeline, node, window, site);
        OperatorInfo keyInfo = OperatorInfo.of("unkeyed", site);
        StageNode key = attach(StageNode.Kind.KEY_BY, keyInfo, new KeySpec.NoKey(keyInfo), 0);
        StageNode n = new StageNode(StageNode.Kind.WINDOW, key, OperatorInfo.of("window", site), window, 0, true);
        key.attach(n);
        return new AllWindowedStage<>(pipeline, n);
    }

    /**
     * A lookup join against a table that never changes (a static map): each record with its
     * key's value, {@code joinFn(record, value)}; {@code INNER} drops records whose key is absent,
     * {@code LEFT} passes null. Stateless and fused into the chain: {@code table} is read, never
     * copied, so it must not change while the job runs. For a table kept by a changelog stream use
     * {@link KeyedStage#lookupJoin}.
     */
    public <K, V, R> Stage<R> lookup(Map<K, V> table, Function<? super T, ? extends K> keyFn, JoinType type,
                                     BiFunction<? super T, ? super V, ? extends R> joinFn) {
        String site = CallSite.ofCaller();
        String call = "lookup(table, keyFn, " + type + ", joinFn) at " + site;
        Objects.requireNonNull(table, call + ": table is null");
        Objects.requireNonNull(keyFn, call + ": keyFn is null");
        Objects.requireNonNull(type, "lookup(table, keyFn, type, joinFn) at " + site + ": type is null");
        Objects.requireNonNull(joinFn, call + ": joinFn is null");
        if (type != JoinType.INNER && type != JoinType.LEFT) {
            throw new IllegalArgumentException(call + ": a lookup is INNER or LEFT");
        }
        pipeline.checkOpen("lookup", site);
        StageNode n = new StageNode(StageNode.Kind.LOOKUP, node, OperatorInfo.of("lookup", site),
                new Planner.LookupSpec((Function<K, V>) table::get, keyFn, type == JoinType.INNER, joinFn), 0, node.timestamped());
        node.attach(n);
        return new Stage<>(pipeline, n);
    }

    /**
     * Spreads the records evenly over every worker (on every peer) of what follows, round robin:
     * for a skewed or a single-instance source ahead of heavy stateless work. Records keep their
     * event times; progress crosses the exchange as low watermarks under either progress mode.
     * Without a codec records cross peers through the serializer (Kryo); {@link #rebalance(Codec)}
     * for a shorter, faster encoding.
     */
    public Stage<T> rebalance() {
        return exchange("rebalance", TailSpec.Spread.REBALANCE, null);
    }

    /** {@link #rebalance()} whose records cross peers and checkpoints by {@code codec}. */
    public Stage<T> rebalance(Codec<T> codec) {
        return exchange("rebalance", TailSpec.Spread.REBALANCE, Objects.requireNonNull(codec, "rebalance(codec): codec is null"));
    }

    /**
     * Sends every record to every worker (on every peer) of what follows, the same object to the
     * workers of one JVM (records must not be changed after the exchange): for small streams every
     * instance needs whole, such as rules or a reference table.
     */
    public Stage<T> broadcast() {
        return exchange("broadcast", TailSpec.Spread.BROADCAST, null);
    }

    /** {@link #broadcast()} whose records cross peers and checkpoints by {@code codec}. */
    public Stage<T> broadcast(Codec<T> codec) {
        return exchange("broadcast", TailSpec.Spread.BROADCAST, Objects.requireNonNull(codec, "broadcast(codec): codec is null"));
    }

    private Stage<T> exchange(String call, TailSpec.Spread spread, Codec<T> codec) {
        String site = CallSite.ofCaller();
        pipeline.checkOpen(call, site);
        StageNode n = new StageNode(StageNode.Kind.EXCHANGE, node, OperatorInfo.of(call, site), new Planner.Exchange(spread, codec), 0,
                node.timestamped());
        node.attach(n);
        return new Stage<>(pipeline, n);
    }

    /**
     * The side output {@code tag} of this process stage ({@code keyed.process(...)}): the records
     * its function sent with {@code ctx.output(tag, value)}, with their event times, as a stage of
     * its own. The main output (this stage) no longer sees them. Outputs to a tag no stage reads
     * are dropped.
     */
    public <X> Stage<X> sideOutput(OutputTag<X> tag) {
        String site = CallSite.ofCaller();
        pipeline.checkOpen("sideOutput", site);
        Objects.requireNonNull(tag, "sideOutput(tag) at " + site + ": tag is null");
        if (node.kind() != StageNode.Kind.PROCESS) {
            throw new IllegalStateException("sideOutput(" + tag.name() + ") at " + site + ": " + node.info().name()
                    + " is not a process stage; only keyBy(...).process(...) has side outputs");
        }
        for (StageNode d : node.downstreams()) {
            if (d.kind() == StageNode.Kind.SIDE_OUTPUT && d.payload().equals(tag)) {
                return new Stage<>(pipeline, d); // one node per tag: its readers branch from it
            }
        }
        return new Stage<>(pipeline, attach(StageNode.Kind.SIDE_OUTPUT, OperatorInfo.of("sideOutput-" + tag.name(), site), tag, 0));
    }

    /**
     * What happens to a record this stage's function throws on (or, for {@code map} and
     * {@code lookup}, returns null for), instead of the job's default
     * ({@link air.runtime.JobConfig#onBadRecord}, itself {@link BadRecordPolicy#fail()} unless set):
     * <ul>
     *   <li>{@link BadRecordPolicy#fail()}: the job fails, naming this stage (its call site), the
     *       record and, behind a source, where the record came from;</li>
     *   <li>{@link BadRecordPolicy#skip()}: the record is dropped and the job goes on; counted in the
     *       meter {@code air.records.bad} (tags {@code job}, {@code operator}: this stage's name,
     *       {@code policy}) and logged, at most one WARN line per worker every ten seconds;</li>
     *   <li>{@link BadRecordPolicy#deadLetter deadLetter(sink)}: as skip, and the record goes to
     *       {@code sink} as a {@link air.runtime.api.DeadLetter} (its origin where known, this
     *       stage, its text as UTF-8, the error). The sink is the plan's like any other: with
     *       checkpoints or replicas it must be exactly-once, and it rolls back with the job.</li>
     * </ul>
     * Applies to the stage it is called on: a {@code map}, {@code filter}, {@code flatMap},
     * {@code lookup}, {@code withTimestamps} or a keyed {@code process} or {@code mapStateful}
     * (whose timers count as records). Whatever the function did before it threw stays done: a
     * process function's state changes and outputs, a flatMap's elements already emitted. Refused,
     * naming this call, on any other stage: a source's undecodable records follow the source's own
     * policy, and window aggregations, joins and key functions fail the job whatever the policy.
     */
    public Stage<T> onBadRecord(BadRecordPolicy policy) {
        String site = CallSite.ofCaller();
        pipeline.checkOpen("onBadRecord", site);
        Objects.requireNonNull(policy, "onBadRecord(policy) at " + site + ": policy is null");
        String call = "onBadRecord(" + policy.label() + ") at " + site;
        if (!node.takesBadRecordPolicy()) {
            String why = switch (node.kind()) {
                case SOURCE -> "it is a source, which runs no function of yours; what a source cannot decode follows the source's own"
                        + " policy (e.g. FileSources.lines(...).onBadRecord(policy), KafkaSources.strings(...).onBadRecord(policy))";
                case AGGREGATE, TOP_K, JOIN, INTERVAL_JOIN, LOOKUP_JOIN -> "the functions of window aggregations and joins fail the job"
                        + " whatever the policy; apply it to the map, filter or flatMap in front of them instead";
                default -> "it runs no function of yours";
            };
            throw new IllegalStateException(call + ": " + node.info().name() + " takes no bad-record policy: " + why
                    + ". Call onBadRecord right after the map, filter, flatMap, lookup, withTimestamps or process whose function"
                    + " it is for");
        }
        node.badRecords(policy, call);
        return this;
    }

    Pipeline pipeline() {
        return pipeline;
    }

    StageNode node() {
        return node;
    }

    /** Names this stage's operator in plans, meters and errors. */
    public Stage<T> named(String name) {
        pipeline.checkOpen("named", CallSite.ofCaller());
        Objects.requireNonNull(name, "named(name): name is null");
        if (name.isBlank()) {
            throw new IllegalArgumentException("named(name): name is blank");
        }
        node.label(name);
        return this;
    }

    private <R> Stage<R> next(String call, StageNode.Kind kind, Object fn, String fnName, long argument, boolean timestamped) {
        return next(call, CallSite.ofCaller(), kind, fn, fnName, argument, timestamped);
    }

    private <R> Stage<R> next(String call, String site, StageNode.Kind kind, Object fn, String fnName, long argument, boolean timestamped) {
        pipeline.checkOpen(call, site);
        Objects.requireNonNull(fn, call + " at " + site + ": " + fnName + " is null");
        StageNode n = new StageNode(kind, node, OperatorInfo.of(kindName(kind), site), fn, argument, timestamped);
        node.attach(n);
        return new Stage<>(pipeline, n);
    }

    private StageNode attach(StageNode.Kind kind, OperatorInfo info, Object payload, long argument) {
        StageNode n = new StageNode(kind, node, info, payload, argument, node.timestamped());
        node.attach(n);
        return n;
    }

    private static String kindName(StageNode.Kind kind) {
        return switch (kind) {
            case MAP -> "map";
            case FILTER -> "filter";
            case FLAT_MAP -> "flatMap";
            case TIMESTAMPS -> "withTimestamps";
            default -> kind.name().toLowerCase(Locale.ROOT);
        };
    }
}
