package air.runtime.plan;

import air.runtime.api.AggregateOp;
import air.runtime.api.SinkFactory;
import air.runtime.api.WindowDefinition;

/**
 * A keyed window aggregation, split by the planner into a partial and a final stage; late records
 * go to {@code lateRecords} when set (null: dropped and counted).
 */
public record WindowAggregation(WindowDefinition window, KeySpec key, AggregateOp<?, ?, ?> op, Routing routing, Progress progress,
                                SinkFactory<?> lateRecords) {

    public String describe() {
        return op.name() + " " + window + " by " + key.info().name() + " routing=" + routing + " progress=" + progress
                + (lateRecords != null ? " late->" + lateRecords.describe() : "");
    }
}
