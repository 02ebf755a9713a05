package air.runtime.plan;

import air.runtime.api.AggregateOp;
import air.runtime.api.SinkFactory;
import air.runtime.api.WindowDefinition;

/**
 * A keyed window aggregation, split by the planner into a partial and a final stage; late records
 * go to {@code lateRecords} when set (null: dropped and counted). A window with
 * {@code allowedLatenessMs > 0} admits records late by up to that much event time after its end
 * and emits updated rows for them; one with {@code earlyResultsMs > 0} emits its value so far
 * every that many milliseconds of processing time while open (0: none). Whether the final half
 * emits upserts is its {@link WindowOutput} ({@link WindowOutput.Upserts}).
 */
public record WindowAggregation(WindowDefinition window, KeySpec key, AggregateOp<?, ?, ?> op, Routing routing, Progress progress,
                                SinkFactory<?> lateRecords, long allowedLatenessMs, long earlyResultsMs) {

    public WindowAggregation {
        if (allowedLatenessMs < 0 || earlyResultsMs < 0) {
            throw new IllegalArgumentException("allowed lateness and the early-results interval must be >= 0 ms, were "
                    + allowedLatenessMs + " and " + earlyResultsMs);
        }
    }

    /** A plain window: emitted once, when progress passes its end. */
    public WindowAggregation(WindowDefinition window, KeySpec key, AggregateOp<?, ?, ?> op, Routing routing, Progress progress,
                             SinkFactory<?> lateRecords) {
        this(window, key, op, routing, progress, lateRecords, 0, 0);
    }

    public String describe() {
        return op.name() + " " + window + " by " + key.info().name() + " routing=" + routing + " progress=" + progress
                + (allowedLatenessMs > 0 ? " lateness=" + allowedLatenessMs + "ms" : "")
                + (earlyResultsMs > 0 ? " early=" + earlyResultsMs + "ms" : "")
                + (lateRecords != null ? " late->" + lateRecords.describe() : "");
    }
}
