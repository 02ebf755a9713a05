package air.runtime.plan;

import air.runtime.api.SourceFactory;

/** What feeds a vertex: a source, or the final half of a window aggregation behind a shuffle. */
public sealed interface HeadSpec {

    OperatorInfo info();

    String describe();

    record Source(OperatorInfo info, SourceFactory<?> factory) implements HeadSpec {
        public String describe() { return "source " + factory.describe() + " " + info; }
    }

    record FinalWindow(OperatorInfo info, WindowAggregation aggregation) implements HeadSpec {
        public String describe() { return "window-final " + aggregation.describe(); }
    }
}
