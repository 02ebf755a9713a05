package air.runtime;

import air.runtime.impl.exec.RunningJob;
import air.runtime.plan.PhysicalPlan;
import java.util.Objects;

/** Runs physical plans on this JVM: the embedded multicore mode. */
public final class Engine {

    private Engine() {
    }

    /** Starts the plan's tasklets on virtual threads and returns at once. */
    public static Job submit(PhysicalPlan plan, JobConfig config) {
        Objects.requireNonNull(plan, "Engine.submit(plan, config): plan is null");
        Objects.requireNonNull(config, "Engine.submit(plan, config): config is null");
        return RunningJob.start(plan, config);
    }
}
