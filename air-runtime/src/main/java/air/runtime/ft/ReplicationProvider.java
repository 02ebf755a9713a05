package air.runtime.ft;

import air.runtime.JobConfig;
import air.runtime.impl.cluster.ClusterSession;
import air.runtime.plan.PhysicalPlan;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Supplies the replication strategy to the runtime; found with {@link java.util.ServiceLoader}
 * (the {@code air-replication} module registers one in {@code META-INF/services}), so the runtime
 * never names a replication class.
 */
public interface ReplicationProvider {

    /**
     * A replicated job's strategy, after refusing ({@link IllegalArgumentException}, naming the job
     * and the reason) a job that cannot be replicated — before any peer runs it.
     */
    FaultTolerance prepare(PhysicalPlan plan, JobConfig config, ClusterSession cluster, MeterRegistry registry);
}
