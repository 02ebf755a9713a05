package air.dsl;

import air.dsl.impl.CallSite;
import air.dsl.impl.StageNode;
import air.runtime.api.WindowDefinition;
import air.runtime.plan.OperatorInfo;
import java.util.Objects;

/** A stream keyed by {@code K}; the next step is an event-time window. */
public final class KeyedStage<K, T> {

    private final Pipeline pipeline;
    private final StageNode node;

    KeyedStage(Pipeline pipeline, StageNode node) {
        this.pipeline = pipeline;
        this.node = node;
    }

    /** Groups each key's records into event-time windows; needs {@code withTimestamps} upstream. */
    public WindowedStage<K, T> window(WindowDefinition window) {
        String site = CallSite.ofCaller();
        pipeline.checkOpen("window", site);
        Objects.requireNonNull(window, "window(definition) at " + site + ": definition is null");
        if (!node.timestamped()) {
            throw new IllegalStateException("window(" + window + ") at " + site
                    + ": the stream has no event timestamps; call withTimestamps(timestampFn, allowedDisorderMs) before "
                    + node.info().name());
        }
        StageNode n = new StageNode(StageNode.Kind.WINDOW, node, OperatorInfo.of("window", site), window, 0, true);
        node.attach(n);
        return new WindowedStage<>(pipeline, n);
    }

    Pipeline pipeline() {
        return pipeline;
    }
}
