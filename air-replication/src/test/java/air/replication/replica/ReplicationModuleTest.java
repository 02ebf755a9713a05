package air.replication.replica;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.JobConfig;
import air.runtime.ft.FaultTolerance;
import air.runtime.plan.HeadSpec;
import air.runtime.plan.OperatorInfo;
import air.runtime.plan.PhysicalPlan;
import air.runtime.plan.TailSpec;
import air.runtime.plan.VertexPlan;
import air.runtime.sink.CollectSink;
import air.runtime.source.GeneratorSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The runtime finds replication through its SPI alone, and replication refuses what it cannot copy before anything runs. */
class ReplicationModuleTest {

    private static PhysicalPlan plan() {
        GeneratorSource<Long> source = new GeneratorSource<>("numbers", 100, i -> i);
        return new PhysicalPlan(List.of(new VertexPlan(0, 1, new HeadSpec.Source(OperatorInfo.of("source", "T.java:1"), source), List.of(),
                new TailSpec.Sink(OperatorInfo.of("sink", "T.java:2"), new CollectSink<Long>()))));
    }

    @Test
    void when_replication_is_asked_the_runtime_finds_this_module_and_it_refuses_a_job_without_a_cluster() {
        JobConfig config = JobConfig.defaults().workers(1).replication(1, 500);
        // the message comes from ReplicatedState, so the lookup through the SPI reached this module
        assertThatThrownBy(() -> FaultTolerance.of(plan(), config, null, new SimpleMeterRegistry()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("replication needs cluster mode");
    }
}
