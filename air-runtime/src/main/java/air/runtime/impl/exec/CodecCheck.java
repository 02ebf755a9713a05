package air.runtime.impl.exec;

import air.runtime.JobConfig;
import air.runtime.plan.PhysicalPlan;

/**
 * A leftover: every value can be encoded now (the JVM's serializer writes what has no codec), so
 * all this checks is {@link KeyTypeCheck#requireStableKeys}, and it ignores its other parameters.
 * Only {@code RunningJob.joinClusterJob} still calls it; replace that call with
 * {@code KeyTypeCheck.requireStableKeys(plan, config)} and delete this class.
 */
public final class CodecCheck {

    private CodecCheck() {
    }

    /** {@link KeyTypeCheck#requireStableKeys}; {@code why}, {@code exchangesToo} and {@code stateToo} are ignored. */
    public static void requireCodecs(PhysicalPlan plan, JobConfig config, String why, boolean exchangesToo, boolean stateToo) {
        KeyTypeCheck.requireStableKeys(plan, config);
    }
}
