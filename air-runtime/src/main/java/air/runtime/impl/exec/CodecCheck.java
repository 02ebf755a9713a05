package air.runtime.impl.exec;

import air.runtime.JobConfig;
import air.runtime.api.StateDescriptor;
import air.runtime.plan.HeadSpec;
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
        requireCodecs(plan, config, why, exchangesToo, true);
    }

    /**
     * @param stateToo whether operator state must be encodable too (checkpoints, replication): a process function's
     *                 states; cluster mode alone only sends what crosses shuffles
     */
    public static void requireCodecs(PhysicalPlan plan, JobConfig config, String why, boolean exchangesToo, boolean stateToo) {
        for (VertexPlan v : plan.vertices()) {
            if (stateToo && v.head() instanceof HeadSpec.KeyedProcess p) {
                for (StateDescriptor<?> s : p.states()) {
                    if (!s.encodable()) {
                        throw new IllegalArgumentException("job '" + config.name() + "': " + s + " of " + p.info() + " has no codec, so "
                                + why + "; declare it with its codec(s): StateDescriptor.value(name, codec), list(name, codec),"
                                + " map(name, keyCodec, valueCodec)");
                    }
                }
            }
            for (TailSpec.Shuffle t : v.shuffleTails()) {
                if (t.codec() != null || t instanceof TailSpec.Exchange && !exchangesToo) {
                    continue;
                }
                throw new IllegalArgumentException("job '" + config.name() + "': " + t.encodes() + (t instanceof TailSpec.PartialWindow
                        ? " has no accumulator codec, so " + why + "; use a built-in aggregation or Aggregations.of(..., codec)"
                                + " (the lists of an interval or lookup join: the overloads with codecs, intervalJoin(..., leftCodec,"
                                + " rightCodec), toTable(valueFn, codec), lookupJoin(..., codec))"
                        : " has no record codec, so " + why + "; give it one: " + (keyed(t)
                                ? "process(fn, recordCodec, states...), mapStateful(createFn, stateCodec, recordCodec, mapFn)"
                                : "rebalance(codec), broadcast(codec)")));
            }
        }
    }

    /** The KEY exchange ahead of a process function. */
    private static boolean keyed(TailSpec.Shuffle t) {
        return t instanceof TailSpec.Exchange x && x.spread() == TailSpec.Spread.KEY;
    }
}
