package air.dsl;

import air.dsl.impl.CallSite;
import air.dsl.impl.StageNode;
import air.runtime.api.SinkFactory;
import air.runtime.plan.KeySpec;
import air.runtime.plan.OperatorInfo;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * A stream of {@code T} records. Consecutive stateless stages fuse into one loop; {@code keyBy}
 * starts a keyed window aggregation, whose records cross a shuffle after local pre-aggregation.
 */
public final class Stage<T> {

    private final Pipeline pipeline;
    private final StageNode node;

    Stage(Pipeline pipeline, StageNode node) {
        this.pipeline = pipeline;
        this.node = node;
    }

    public <R> Stage<R> map(Function<? super T, ? extends R> mapFn) {
        return next("map", StageNode.Kind.MAP, mapFn, "mapFn", 0, node.timestamped());
    }

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
        if (allowedDisorderMs < 0) {
            throw new IllegalArgumentException(call + " at " + site + ": allowedDisorderMs must be >= 0");
        }
        StageNode origin = node.timestampOrigin();
        if (origin != null) {
            throw new IllegalStateException(call + " at " + site + ": timestamps are already declared by "
                    + origin.info().name() + "; declare them once");
        }
        return next(call, site, StageNode.Kind.TIMESTAMPS, timestampFn, "timestampFn", allowedDisorderMs, true);
    }

    /** Keys records by an object key (non-null, with stable equals/hashCode). */
    public <K> KeyedStage<K, T> keyBy(Function<? super T, ? extends K> keyFn) {
        String site = CallSite.ofCaller();
        pipeline.checkOpen("keyBy", site);
        Objects.requireNonNull(keyFn, "keyBy(keyFn) at " + site + ": keyFn is null");
        OperatorInfo info = OperatorInfo.of("keyBy", site);
        return new KeyedStage<>(pipeline, attach("keyBy", StageNode.Kind.KEY_BY, info, new KeySpec.ObjectKey(info, keyFn), 0));
    }

    /** Keys records by a primitive long key, kept in primitive maps (no boxing per record). */
    public KeyedStage<Long, T> keyByLong(ToLongFunction<? super T> keyFn) {
        String site = CallSite.ofCaller();
        pipeline.checkOpen("keyByLong", site);
        Objects.requireNonNull(keyFn, "keyByLong(keyFn) at " + site + ": keyFn is null");
        OperatorInfo info = OperatorInfo.of("keyByLong", site);
        return new KeyedStage<>(pipeline, attach("keyByLong", StageNode.Kind.KEY_BY, info, new KeySpec.LongKey(info, keyFn), 0));
    }

    /** Ends the pipeline in a sink, one writer per worker. */
    public void writeTo(SinkFactory<? super T> sink) {
        String site = CallSite.ofCaller();
        pipeline.checkOpen("writeTo", site);
        Objects.requireNonNull(sink, "writeTo(sink) at " + site + ": sink is null");
        StageNode sinkNode = attach("writeTo", StageNode.Kind.SINK, OperatorInfo.of("sink", site), sink, 0);
        pipeline.sinkAttached(sinkNode);
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
        node.attach(n, call);
        return new Stage<>(pipeline, n);
    }

    private StageNode attach(String call, StageNode.Kind kind, OperatorInfo info, Object payload, long argument) {
        StageNode n = new StageNode(kind, node, info, payload, argument, node.timestamped());
        node.attach(n, call);
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
