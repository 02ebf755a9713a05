package air.runtime.plan;

import air.runtime.api.SinkFactory;

/** How a vertex ends: a sink, or the partial half of a window aggregation feeding a shuffle. */
public sealed interface TailSpec {

    OperatorInfo info();

    String describe();

    record Sink(OperatorInfo info, SinkFactory<?> factory) implements TailSpec {
        public String describe() { return "sink " + factory.describe() + " " + info; }
    }

    record PartialWindow(OperatorInfo info, WindowAggregation aggregation) implements TailSpec {
        public String describe() { return "window-partial " + aggregation.describe(); }
    }
}
