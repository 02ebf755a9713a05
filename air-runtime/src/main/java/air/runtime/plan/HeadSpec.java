package air.runtime.plan;

import air.runtime.api.SourceFactory;

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
}
