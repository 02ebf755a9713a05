package air.runtime.plan;

import air.runtime.api.BadRecordPolicy;
import air.runtime.api.JoinFunction;
import air.runtime.api.JoinType;
import air.runtime.api.KeyedProcessFunction;
import air.runtime.api.OutputTag;
import air.runtime.api.SourceFactory;
import air.runtime.api.StateDescriptor;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * What feeds a vertex: a source, or the final half of a window operator behind one shuffle edge
 * per input (a window aggregation has one input, a window join two).
 */
public sealed interface HeadSpec {

    OperatorInfo info();

    String describe();

    /** How many inputs the head has: 0 for a source. */
    int inputs();

    record Source(OperatorInfo info, SourceFactory<?> factory) implements HeadSpec {
        public String describe() { return "source " + factory.describe() + " " + info; }

        public int inputs() { return 0; }
    }

    /** The receiving end of an exchange edge: its records, in the chain that follows. */
    record Exchange(OperatorInfo info, TailSpec.Spread spread) implements HeadSpec {
        public String describe() { return "exchange-in " + spread.name().toLowerCase(Locale.ROOT) + " " + info; }

        public int inputs() { return 1; }
    }

    /** The final half of {@code aggregation}; {@code output} says what it emits, and so which operator runs. */
    record FinalWindow(OperatorInfo info, WindowAggregation aggregation, WindowOutput output) implements HeadSpec {
        public FinalWindow(OperatorInfo info, WindowAggregation aggregation) {
            this(info, aggregation, new WindowOutput.PerKey());
        }

        public FinalWindow {
            if (output instanceof WindowOutput.TopK && aggregation.routing() != Routing.AIR) {
                throw new IllegalArgumentException(info.name() + ": a top-k needs AIR routing (one owner per window), not "
                        + aggregation.routing());
            }
            if (!(output instanceof WindowOutput.Upserts) && (aggregation.allowedLatenessMs() > 0 || aggregation.earlyResultsMs() > 0)) {
                throw new IllegalArgumentException(info.name() + ": only an upserting window (" + output.describe().trim()
                        + " is not one) takes allowed lateness or early results");
            }
            if ((output instanceof WindowOutput.Sessions || output instanceof WindowOutput.Counts) && aggregation.routing() != Routing.KEY) {
                throw new IllegalArgumentException(info.name() + ": session and count windows need KEY routing (a key's windows on its"
                        + " owner), not " + aggregation.routing());
            }
        }

        public String describe() { return "window-final " + output.describe() + aggregation.describe(); }

        public int inputs() { return 1; }
    }

    /**
     * A window join of two keyed window aggregations on (window, key): input 0 is {@code left},
     * input 1 {@code right}. Both sides must window, key and route alike, so that a (window, key)
     * of either side is finalised on the same instance and the join needs no second shuffle.
     */
    record WindowJoin(OperatorInfo info, WindowAggregation left, WindowAggregation right, JoinSpec join) implements HeadSpec {
        public WindowJoin {
            if (!left.window().equals(right.window())) {
                throw new IllegalArgumentException(info.name() + ": the two sides window differently: " + left.window() + " and "
                        + right.window());
            }
            if (left.key().getClass() != right.key().getClass()) {
                throw new IllegalArgumentException(info.name() + ": one side has a long key and the other an object key ("
                        + left.key().info().name() + ", " + right.key().info().name() + ")");
            }
            if (left.routing() != right.routing() || left.progress() != right.progress()) {
                throw new IllegalArgumentException(info.name() + ": the two sides route or progress differently");
            }
        }

        public String describe() {
            return "window-join " + join.type() + " of (" + left.describe() + ") and (" + right.describe() + ")";
        }

        public int inputs() { return 2; }
    }

    /**
     * An interval join of two keyed streams: every pair of a left record {@code a} and a right
     * record {@code b} of one key with {@code a.ts} in {@code [b.ts - lowerMs, b.ts + upperMs]}.
     * Each side travels as per-key lists of timestamped records per pane ({@code left} and
     * {@code right}: tumbling panes, routed by key so that a key's records of every pane meet).
     */
    record IntervalJoin(OperatorInfo info, WindowAggregation left, WindowAggregation right, long lowerMs, long upperMs,
                        JoinFunction<?, ?, ?, ?> joinFn) implements HeadSpec {
        public IntervalJoin {
            requirePaneSides(info, left, right);
            if (lowerMs < 0 || upperMs < 0) {
                throw new IllegalArgumentException(info.name() + ": lowerMs and upperMs must be >= 0, were " + lowerMs + " and " + upperMs);
            }
        }

        public String describe() {
            return "interval-join a.ts in [b.ts - " + lowerMs + ", b.ts + " + upperMs + "] of (" + left.describe() + ") and ("
                    + right.describe() + ")";
        }

        public int inputs() { return 2; }
    }

    /**
     * A lookup join of a keyed stream (input 0, {@code stream}) against a table kept by a
     * changelog stream (input 1, {@code table}): a record sees, per key, the latest change at or
     * before its own event time (changes first at equal times); {@code valueFn} gives a change's
     * value, null for a delete. Both travel as per-key lists of timestamped records per pane.
     */
    record LookupJoin(OperatorInfo info, WindowAggregation stream, WindowAggregation table, JoinType type, Function<?, ?> valueFn,
                      JoinFunction<?, ?, ?, ?> joinFn) implements HeadSpec {
        public LookupJoin {
            requirePaneSides(info, stream, table);
            if (type != JoinType.INNER && type != JoinType.LEFT) {
                throw new IllegalArgumentException(info.name() + ": a lookup join is INNER or LEFT, not " + type);
            }
        }

        public String describe() {
            return "lookup-join " + type + " of (" + stream.describe() + ") against the table of (" + table.describe() + ")";
        }

        public int inputs() { return 2; }
    }

    /**
     * A keyed process function behind a KEY exchange ({@link TailSpec.Spread#KEY}: each record to
     * the instance owning its key's hash), with per-key {@code states}, timers, and records for the
     * side outputs {@code sideOutputs} wrapped as {@link SideOutputItem}s. {@code timestamped}: its
     * input carries event time (a time to live needs it). {@code badRecords}: what happens to a record (or timer) the function
     * throws on; under {@link BadRecordPolicy#deadLetter} the vertex's tail is a {@link TailSpec.Fork} whose last branch takes
     * the dead letters ({@link TailSpec.Fork#deadLetters}).
     */
    record KeyedProcess(OperatorInfo info, KeySpec key, KeyedProcessFunction<?, ?, ?> function, List<StateDescriptor<?>> states,
                        List<OutputTag<?>> sideOutputs, boolean timestamped, BadRecordPolicy badRecords) implements HeadSpec {
        public KeyedProcess(OperatorInfo info, KeySpec key, KeyedProcessFunction<?, ?, ?> function, List<StateDescriptor<?>> states,
                            List<OutputTag<?>> sideOutputs, boolean timestamped) {
            this(info, key, function, states, sideOutputs, timestamped, BadRecordPolicy.fail());
        }

        public KeyedProcess {
            Objects.requireNonNull(badRecords, "badRecords");
            states = List.copyOf(states);
            sideOutputs = List.copyOf(sideOutputs);
            Set<String> names = new HashSet<>();
            for (StateDescriptor<?> s : states) {
                if (!names.add(s.name())) {
                    throw new IllegalArgumentException(info.name() + ": two states are named '" + s.name() + "'");
                }
                if (s.ttlMs() > 0 && !timestamped) {
                    throw new IllegalArgumentException(info.name() + ": " + s + " has a time to live in event time, but the stream has"
                            + " no event timestamps; call withTimestamps(timestampFn, allowedDisorderMs) before keyBy");
                }
            }
            Set<String> tags = new HashSet<>();
            for (OutputTag<?> t : sideOutputs) {
                if (!tags.add(t.name())) {
                    throw new IllegalArgumentException(info.name() + ": two side outputs are named '" + t.name() + "'");
                }
            }
        }

        public String describe() {
            return "process " + info + " by " + key.info().name() + " states " + states
                    + (sideOutputs.isEmpty() ? "" : " side outputs " + sideOutputs.stream().map(OutputTag::name).toList())
                    + OpSpec.onBadRecords(badRecords);
        }

        public int inputs() { return 1; }
    }

    /** Both sides of a pane join: tumbling panes alike, keyed alike, routed by key. */
    private static void requirePaneSides(OperatorInfo info, WindowAggregation left, WindowAggregation right) {
        if (!left.window().equals(right.window()) || !left.window().isTumbling()) {
            throw new IllegalArgumentException(info.name() + ": both sides need the same tumbling panes, not " + left.window() + " and "
                    + right.window());
        }
        if (left.key().getClass() != right.key().getClass()) {
            throw new IllegalArgumentException(info.name() + ": one side has a long key and the other an object key ("
                    + left.key().info().name() + ", " + right.key().info().name() + ")");
        }
        if (left.routing() != Routing.KEY || right.routing() != Routing.KEY) {
            throw new IllegalArgumentException(info.name() + ": a join over time ranges needs KEY routing (a key's panes on one instance)");
        }
        if (left.progress() != right.progress()) {
            throw new IllegalArgumentException(info.name() + ": the two sides progress differently");
        }
    }
}
