package air.runtime.plan;

import air.runtime.api.SourceFactory;

/** What feeds a vertex: a source, or the final half of a window aggregation behind a shuffle. */
public sealed interface HeadSpec {

    OperatorInfo info();

    String describe();

    record Source(OperatorInfo info, SourceFactory<?> factory) implements HeadSpec {
        public String describe() { return "source " + factory.describe() + " " + info; }
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
    }
}
