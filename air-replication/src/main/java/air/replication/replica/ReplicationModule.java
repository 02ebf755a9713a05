package air.replication.replica;

import air.runtime.JobConfig;
import air.runtime.ft.FaultTolerance;
import air.runtime.ft.ReplicationProvider;
import air.runtime.impl.cluster.ClusterSession;
import air.runtime.plan.PhysicalPlan;
import io.micrometer.core.instrument.MeterRegistry;

/** Plugs replication into the runtime (registered in {@code META-INF/services}); the runtime never names the classes behind it. */
public final class ReplicationModule implements ReplicationProvider {

    @Override
    public FaultTolerance prepare(PhysicalPlan plan, JobConfig config, ClusterSession cluster, MeterRegistry registry) {
        return ReplicatedState.prepare(plan, config, cluster, registry);
    }
}
