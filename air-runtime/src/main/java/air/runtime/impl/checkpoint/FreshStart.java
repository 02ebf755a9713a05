package air.runtime.impl.checkpoint;

import air.runtime.CheckpointMismatchException;
import air.runtime.JobConfig;
import air.runtime.api.SinkFactory;
import air.runtime.plan.PhysicalPlan;
import air.runtime.plan.TailSpec;
import air.runtime.plan.VertexPlan;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first run ever of a checkpointed job (no run of it claimed its checkpoints before) starts
 * from scratch; when its sinks hold output of an earlier run ({@link SinkFactory#earlierOutput},
 * for example {@code Sinks.files}' part files), starting would replace it. Refused, naming what,
 * unless the user asked to start afresh ({@link JobConfig#startAfresh}), which removes it with a
 * WARN (every peer removes what it sees, before any peer runs). A restart of a run that died before its first checkpoint is not a first run: what it
 * wrote was never committed, and replacing it is what exactly-once needs.
 */
public final class FreshStart {

    private static final Logger LOG = LoggerFactory.getLogger(FreshStart.class);

    private FreshStart() {
    }

    public static void refuseOrReplaceEarlierOutput(PhysicalPlan plan, JobConfig config) throws IOException {
        List<String> earlier = new ArrayList<>();
        List<SinkFactory<?>> holding = new ArrayList<>();
        for (SinkFactory<?> sink : sinksOf(plan)) {
            List<String> items = sink.earlierOutput();
            if (!items.isEmpty()) {
                earlier.addAll(items);
                holding.add(sink);
            }
        }
        if (earlier.isEmpty()) {
            return;
        }
        if (!config.startAfresh()) {
            throw new CheckpointMismatchException("job '" + config.name() + "': this is its first run with " + config.checkpointStore()
                    .describe() + ", but its sinks hold output of an earlier run that starting from scratch would replace: "
                    + String.join(", ", earlier) + ". Resume with the checkpoints of the run that wrote them, move them away, or "
                    + "start afresh on purpose (JobConfig.startAfresh(true), './air ... --fresh')");
        }
        LOG.warn("job '{}': starting afresh as asked: removing the output of an earlier run: {}", config.name(), String.join(", ", earlier));
        for (SinkFactory<?> sink : holding) {
            sink.discardEarlierOutput();
        }
    }

    /** Every sink of the plan (in every branch, and where window operators send late records), each once. */
    static Set<SinkFactory<?>> sinksOf(PhysicalPlan plan) {
        Set<SinkFactory<?>> sinks = new LinkedHashSet<>();
        for (VertexPlan v : plan.vertices()) {
            collect(v.tail(), sinks);
        }
        return sinks;
    }

    private static void collect(TailSpec tail, Set<SinkFactory<?>> sinks) {
        switch (tail) {
            case TailSpec.Sink s -> sinks.add(s.factory());
            case TailSpec.Fork f -> f.branches().forEach(b -> collect(b.tail(), sinks));
            case TailSpec.PartialWindow p -> {
                if (p.aggregation().lateRecords() != null) {
                    sinks.add(p.aggregation().lateRecords());
                }
            }
            case TailSpec.Shuffle s -> { }
        }
    }
}
