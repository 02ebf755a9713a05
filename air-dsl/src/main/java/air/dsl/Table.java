package air.dsl;

import air.dsl.impl.StageNode;
import air.runtime.api.AggregateOp;
import java.util.function.Function;

/**
 * A table kept up to date by a keyed changelog stream ({@link KeyedStage#toTable}): per key the
 * value of its latest change, absent after a change whose value is null. Read by
 * {@link KeyedStage#lookupJoin} as of each looked-up record's event time.
 */
public final class Table<K, V> {

    /** What the table stage holds: the value of a change, and how changes travel (timestamped lists). */
    record Spec(Function<?, ?> valueFn, AggregateOp<?, ?, ?> changes) { }

    private final Pipeline pipeline;
    private final StageNode node;

    Table(Pipeline pipeline, StageNode node) {
        this.pipeline = pipeline;
        this.node = node;
    }

    Pipeline pipeline() {
        return pipeline;
    }

    StageNode node() {
        return node;
    }
}
