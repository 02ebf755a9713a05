package air.runtime.impl.exec;

import air.runtime.JobConfig;
import air.runtime.api.BadRecordPolicy;
import air.runtime.api.LongAggregateOp;
import air.runtime.api.SourceReader;
import air.runtime.impl.ops.BadRecordHandler;
import air.runtime.impl.ops.CountWindowOp;
import air.runtime.impl.ops.EventClock;
import air.runtime.impl.ops.ExchangeInOp;
import air.runtime.impl.ops.FilterOp;
import air.runtime.impl.ops.FinalWindowOp;
import air.runtime.impl.ops.FlatMapOp;
import air.runtime.impl.ops.Inlet;
import air.runtime.impl.ops.IntervalJoinOp;
import air.runtime.impl.ops.KeyHash;
import air.runtime.impl.ops.KeyedFrameFactory;
import air.runtime.impl.ops.KeyedProcessOp;
import air.runtime.impl.ops.LongKeyedFrame;
import air.runtime.impl.ops.LongValueFrame;
import air.runtime.impl.ops.LookupJoinOp;
import air.runtime.impl.ops.LookupOp;
import air.runtime.impl.ops.MapOp;
import air.runtime.impl.ops.ObjectKeyedFrame;
import air.runtime.impl.ops.SessionWindowOp;
import air.runtime.impl.ops.SingleKeyFrame;
import air.runtime.impl.ops.SplitCursor;
import air.runtime.impl.ops.SplitTimestampOp;
import air.runtime.impl.ops.StampOp;
import air.runtime.impl.ops.TimestampOp;
import air.runtime.impl.ops.TopKWindowOp;
import air.runtime.impl.ops.UpsertWindowOp;
import air.runtime.impl.ops.WindowJoinOp;
import air.runtime.impl.routing.WindowRouter;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.runtime.impl.source.GeneratorReader;
import air.runtime.operator.Operator;
import air.runtime.plan.HeadSpec;
import air.runtime.plan.KeySpec;
import air.runtime.plan.OpSpec;
import air.runtime.plan.OperatorInfo;
import air.runtime.plan.Progress;
import air.runtime.plan.WindowAggregation;
import air.runtime.plan.WindowOutput;
import air.runtime.source.GeneratorSource;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Builds one graph's operators from their specs: each (vertex, position, class) gets its own copy
 * of the operator class ({@link ClassSpecializer}), shared by that vertex's instances, so that the
 * JIT profiles every call site of a job on its own. {@link JobGraph} decides where operators go and
 * wires them; this class only knows how each kind is made.
 */
final class OperatorFactory {

    /** A vertex's head operator (not a source), with what its inbound edge needs to know of it. */
    record Head(Operator op, String kind, Progress progress, long epochLength, boolean window) { }

    private final JobConfig config;
    private final ClassSpecializer specializer;
    private final Map<String, Class<?>> classes = new HashMap<>();
    private final Map<String, EventClock> clocks = new HashMap<>();
    /** Where bad records are counted ({@code air.records.bad}). */
    private final MeterRegistry meters;
    /** The bad-record handlers made since the last {@link #bindOrigins}: the instance being built now. */
    private final List<BadRecordHandler> unbound = new ArrayList<>();
    /** The split cursor of the source instance whose chain is being built, or null: event time per split there. */
    private SplitCursor splits;

    OperatorFactory(JobConfig config) {
        this.config = config;
        this.specializer = new ClassSpecializer(config.specializeOperators());
        this.meters = config.meterRegistryOrDefault();
    }

    /** An instance of this graph's copy of {@code type} at (vertex, position). */
    <T> T create(int vertex, int position, Class<?> type, Object... args) {
        return specializer.newInstance(classAt(vertex, position, type), args);
    }

    private Class<?> classAt(int vertex, int position, Class<?> type) {
        return classes.computeIfAbsent(vertex + "/" + position + "/" + type.getName(), k -> specializer.specialize(type));
    }

    /** The reader of source {@code s} for global instance {@code global}; the built-in generator reads through a class copy. */
    SourceReader<?> reader(int vertex, HeadSpec.Source s, int global, int globalParallelism) {
        return s.factory() instanceof GeneratorSource<?> g
                ? create(vertex, 0, GeneratorReader.class, g.readerArguments(global, globalParallelism))
                : s.factory().createReader(global, globalParallelism);
    }

    /**
     * A stateless chain operator in front of {@code next}; {@code deadLetters}: the head of the
     * dead-letter branch behind it when its bad-record policy is dead-letter, else null.
     */
    Inlet<?> chainOp(int vertex, int position, OpSpec spec, Inlet<?> next, Inlet<?> deadLetters) {
        BadRecordHandler bad = badRecords(spec.badRecords(), spec.info(), deadLetters);
        return switch (spec) {
            case OpSpec.Map m -> create(vertex, position, MapOp.class, m.info(), m.fn(), bad, next);
            case OpSpec.Filter f -> create(vertex, position, FilterOp.class, f.info(), f.predicate(), bad, next);
            case OpSpec.FlatMap f -> create(vertex, position, FlatMapOp.class, f.info(), f.fn(), bad, next);
            case OpSpec.Lookup l -> create(vertex, position, LookupOp.class, l.info(), l.valueOf(), l.keyFn(), l.inner(), l.joinFn(), bad,
                    next);
            case OpSpec.Stamp t -> create(vertex, position, StampOp.class, t.info(), next);
            case OpSpec.Timestamps t when splits != null -> create(vertex, position, SplitTimestampOp.class, t.info(), t.timestampFn(), bad,
                    t.allowedDisorderMs(), watermarkIntervalNanos(), config.idleTimeoutMs() * 1_000_000L, clockAt(vertex, position),
                    config.timeSource(), splits, next);
            case OpSpec.Timestamps t -> create(vertex, position, TimestampOp.class, t.info(), t.timestampFn(), bad, t.allowedDisorderMs(),
                    watermarkIntervalNanos(), config.idleTimeoutMs() * 1_000_000L, clockAt(vertex, position), config.timeSource(), next);
        };
    }

    private EventClock clockAt(int vertex, int position) {
        return clocks.computeIfAbsent(vertex + "/" + position, k -> new EventClock());
    }

    /**
     * The chain built next reads its records from a source instance that reads several splits in
     * turn and names each in {@code cursor}: its {@code withTimestamps} keeps event time per split
     * ({@link SplitTimestampOp}). Null: the chain built next does not (another source, or a vertex
     * fed by a shuffle).
     */
    void readingSplits(SplitCursor cursor) {
        splits = cursor;
    }

    /** One instance's handler of {@code policy} for operator {@code info}, chosen once; {@code deadLetters}: see {@link #chainOp}. */
    private BadRecordHandler badRecords(BadRecordPolicy policy, OperatorInfo info, Inlet<?> deadLetters) {
        BadRecordHandler handler = BadRecordHandler.of(policy, info, config.name(), meters, deadLetters);
        unbound.add(handler);
        return handler;
    }

    /**
     * The instance just built reads its records from a source whose reader says where the current
     * one came from ({@code origin}; null: it does not, the vertex is fed by a shuffle): its
     * bad-record handlers put that in their logs and dead letters.
     */
    void bindOrigins(Supplier<String> origin) {
        if (origin != null) {
            unbound.forEach(h -> h.originFrom(origin));
        }
        unbound.clear();
    }

    /** What meters and reports call a chain operator. */
    static String kindOf(OpSpec spec) {
        return switch (spec) {
            case OpSpec.Map m -> "map";
            case OpSpec.Filter f -> "filter";
            case OpSpec.FlatMap f -> "flatMap";
            case OpSpec.Timestamps t -> "timestamps";
            case OpSpec.Stamp t -> "stamp";
            case OpSpec.Lookup l -> "lookup";
        };
    }

    /** Hew-meld releases credit per batch; low watermarks are periodic. */
    private long watermarkIntervalNanos() {
        return config.progress() == Progress.HEWMELD ? 0 : config.watermarkIntervalMs() * 1_000_000L;
    }

    /**
     * The head operator of a vertex fed by shuffles, for global instance {@code global} of {@code n}, in front of {@code next};
     * {@code deadLetters}: the head of the dead-letter branch behind a process function whose policy is dead-letter, else null.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    Head head(int vertex, HeadSpec spec, int global, int n, Inlet<?> next, Inlet<?> deadLetters) {
        if (deadLetters != null && !(spec instanceof HeadSpec.KeyedProcess)) {
            throw new IllegalStateException(spec.info().name() + ": a dead-letter branch behind a head without a user function's policy");
        }
        return switch (spec) {
            case HeadSpec.Source s -> throw new IllegalArgumentException(s.info() + " is a source: its tasklet reads it, no operator");
            // an exchange carries records and low watermarks, whatever the job's progress mode
            case HeadSpec.Exchange x -> new Head(create(vertex, 0, ExchangeInOp.class, x.info(), next), "exchange-in", Progress.WATERMARK,
                    1, false);
            // a process function's KEY exchange carries records and low watermarks too
            case HeadSpec.KeyedProcess p -> new Head(new KeyedProcessOp(p.info(), keyHash(p.key()), p.function(), p.states(), p.sideOutputs(),
                    p.timestamped(), config.timeSource(), badRecords(p.badRecords(), p.info(), deadLetters), next), "process",
                    Progress.WATERMARK, 1, false);
            case HeadSpec.FinalWindow fw -> {
                WindowAggregation agg = fw.aggregation();
                KeyedFrameFactory<?> frames = frameFactory(vertex, 0, fw.info(), agg);
                WindowRouter router = WindowRouter.of(agg.routing(), agg.window());
                Operator op = switch (fw.output()) {
                    case WindowOutput.PerKey p -> create(vertex, 0, FinalWindowOp.class, fw.info(), agg.window(), router, global, n, frames,
                            frameCodec(agg, fw.info()), next);
                    case WindowOutput.Upserts u -> new UpsertWindowOp<>(fw.info(), agg.window(), agg.allowedLatenessMs(), agg.earlyResultsMs(),
                            config.timeSource(), router, global, n, frames, frameCodec(agg, fw.info()), (Inlet) next);
                    case WindowOutput.TopK t -> new TopKWindowOp<>(fw.info(), agg.window(), router, global, n, frames,
                            frameCodec(agg, fw.info()), t, (Inlet) next);
                    // the plan's aggregation wraps the user's (its parts carry the user's accumulators): the final half needs the user's
                    case WindowOutput.Sessions s -> new SessionWindowOp(fw.info(), s.gapMs(), agg.window().slide(),
                            agg.key() instanceof KeySpec.LongKey, s.op(), next);
                    case WindowOutput.Counts c -> new CountWindowOp(fw.info(), c.size(), agg.key() instanceof KeySpec.LongKey, c.op(), next);
                };
                yield new Head(op, "window-final", agg.progress(), agg.window().slide(), true);
            }
            case HeadSpec.WindowJoin j -> {
                WindowAggregation left = j.left();
                // each side's frames get a class copy of their own, so that neither side's aggregation pollutes the other's profile
                Operator op = new WindowJoinOp(j.info(), left.window(), WindowRouter.of(left.routing(), left.window()), global, n,
                        frameFactory(vertex, 0, j.info(), left), frameCodec(left, j.info()),
                        frameFactory(vertex, -1, j.info(), j.right()), frameCodec(j.right(), j.info()), j.join().type(), j.join().joinFn(),
                        (Inlet) next);
                yield new Head(op, "window-join", left.progress(), left.window().slide(), true);
            }
            case HeadSpec.IntervalJoin j -> {
                WindowAggregation left = j.left();
                Operator op = new IntervalJoinOp(j.info(), left.window(), WindowRouter.of(left.routing(), left.window()), global, n,
                        frameFactory(vertex, 0, j.info(), left), frameCodec(left, j.info()),
                        frameFactory(vertex, -1, j.info(), j.right()), frameCodec(j.right(), j.info()), left.key() instanceof KeySpec.LongKey,
                        j.lowerMs(), j.upperMs(), j.joinFn(), next);
                yield new Head(op, "interval-join", left.progress(), left.window().slide(), true);
            }
            case HeadSpec.LookupJoin j -> {
                WindowAggregation stream = j.stream();
                Operator op = new LookupJoinOp(j.info(), stream.window(), WindowRouter.of(stream.routing(), stream.window()), global, n,
                        frameFactory(vertex, 0, j.info(), stream), frameCodec(stream, j.info()),
                        frameFactory(vertex, -1, j.info(), j.table()), frameCodec(j.table(), j.info()),
                        stream.key() instanceof KeySpec.LongKey, j.type(), j.valueFn(), j.joinFn(), next);
                yield new Head(op, "lookup-join", stream.progress(), stream.window().slide(), true);
            }
        };
    }

    /** The key and owner of a keyed stream's records, for a KEY exchange and the process function behind it. */
    static KeyHash keyHash(KeySpec key) {
        return switch (key) {
            case KeySpec.LongKey k -> new KeyHash(k.info(), k.keyFn(), null);
            case KeySpec.ObjectKey k -> new KeyHash(k.info(), null, k.keyFn());
            case KeySpec.NoKey k -> throw new IllegalArgumentException(k.info().name() + ": a KEY exchange needs a key");
        };
    }

    /** The frames of an aggregation at (vertex, position), by key kind. */
    KeyedFrameFactory<?> frameFactory(int vertex, int position, OperatorInfo info, WindowAggregation agg) {
        return switch (agg.key()) {
            case KeySpec.LongKey k when LongValueFrame.fits(agg) ->
                    new KeyedFrameFactory<>(ClassSpecializer.constructorOf(classAt(vertex, position, LongValueFrame.class)), info, k.keyFn(),
                            agg.op());
            case KeySpec.LongKey k -> new KeyedFrameFactory<>(
                    ClassSpecializer.constructorOf(classAt(vertex, position, LongKeyedFrame.class)), info, k.keyFn(), agg.op());
            case KeySpec.NoKey k -> new KeyedFrameFactory<>(
                    ClassSpecializer.constructorOf(classAt(vertex, position, SingleKeyFrame.class)), info, agg.op());
            case KeySpec.ObjectKey k -> new KeyedFrameFactory<>(
                    ClassSpecializer.constructorOf(classAt(vertex, position, ObjectKeyedFrame.class)), info, k.keyFn(), agg.op());
        };
    }

    /**
     * The codec of an aggregation's frames across peers and in checkpoints: packed for a one-long
     * aggregation by a long key ({@link LongValueFrame#fits}), else its accumulator codec, else the serializer.
     */
    static ShuffleItemCodec frameCodec(WindowAggregation agg, OperatorInfo info) {
        if (LongValueFrame.fits(agg)) {
            return ShuffleItemCodec.packing(info, (LongAggregateOp<?, ?, ?>) agg.op());
        }
        return new ShuffleItemCodec(info, agg.op().accumulatorCodec());
    }
}
