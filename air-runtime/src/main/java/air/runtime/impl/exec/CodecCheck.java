package air.runtime.impl.exec;

import air.runtime.JobConfig;
import air.runtime.plan.PhysicalPlan;
import air.runtime.plan.TailSpec;
import air.runtime.plan.VertexPlan;

/** Cluster mode and checkpoints both encode window state: a job whose aggregation cannot is refused, naming it. */
public final class CodecCheck {

    private CodecCheck() {
    }

    /**
     * @param why           what the encoding is for, e.g. "its state cannot be checkpointed"
     * @param exchangesToo  whether exchanges' records must be encodable too: they cross peers, but a snapshot holds none
     */
    public static void requireCodecs(PhysicalPlan plan, JobConfig config, String why, boolean exchangesToo) {
        for (VertexPlan v : plan.vertices()) {
            for (TailSpec.Shuffle t : v.shuffleTails()) {
                if (t.codec() != null || t instanceof TailSpec.Exchange && !exchangesToo) {
                    continue;
                }
                throw new IllegalArgumentException("job '" + config.name() + "': " + t.encodes() + (t instanceof TailSpec.PartialWindow
                        ? " has no accumulator codec, so " + why + "; use a built-in aggregation or Aggregations.of(..., codec)"
                                + " (the lists of an interval or lookup join: the overloads with codecs, intervalJoin(..., leftCodec,"
                                + " rightCodec), toTable(valueFn, codec), lookupJoin(..., codec))"
                        : " has no record codec, so " + why + "; give it one: rebalance(codec), broadcast(codec)"));
            }
        }
    }
}
