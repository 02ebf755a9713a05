package air.runtime.impl.exec;

import air.runtime.JobConfig;
import air.runtime.plan.PhysicalPlan;

/**
 * What cluster mode, checkpoints and replication require of a job's values before it runs. Every
 * accumulator, record, state and key can be encoded now: where no {@code Codec} was given the JVM's
 * serializer (Kryo by default) writes it. What remains to refuse is a key that cannot be placed the
 * same way on every JVM: {@link KeyTypeCheck}, which {@link JobGraph#build} runs for every job too.
 */
public final class CodecCheck {

    private CodecCheck() {
    }

    /**
     * @param why           what the encoding is for, e.g. "its state cannot be checkpointed" (unused: nothing lacks an encoding)
     * @param exchangesToo  whether exchanges' records cross (cluster mode, replication)
     */
    public static void requireCodecs(PhysicalPlan plan, JobConfig config, String why, boolean exchangesToo) {
        requireCodecs(plan, config, why, exchangesToo, true);
    }

    /** @param stateToo whether operator state is written too (checkpoints, replication) */
    public static void requireCodecs(PhysicalPlan plan, JobConfig config, String why, boolean exchangesToo, boolean stateToo) {
        KeyTypeCheck.requireStableKeys(plan, config);
    }
}
