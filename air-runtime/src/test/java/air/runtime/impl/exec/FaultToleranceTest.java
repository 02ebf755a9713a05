package air.runtime.impl.exec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.JobConfig;
import air.runtime.JobStatus;
import air.runtime.api.CheckpointStore;
import air.runtime.api.SinkFactory;
import air.runtime.ft.FaultTolerance;
import air.runtime.plan.HeadSpec;
import air.runtime.plan.OperatorInfo;
import air.runtime.plan.PhysicalPlan;
import air.runtime.plan.TailSpec;
import air.runtime.plan.VertexPlan;
import air.runtime.sink.CallbackSink;
import air.runtime.sink.CollectSink;
import air.runtime.source.GeneratorSource;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The three fault-tolerance strategies as the job's lifecycle sees them, chosen from the config alone. */
class FaultToleranceTest {

    /** A store in memory that records what is written. */
    static final class MemoryStore implements CheckpointStore {
        final List<String> written = new CopyOnWriteArrayList<>();

        @Override
        public void write(String job, long id, int peer, int peers, Map<String, byte[]> parts) {
            written.add(job + "#" + id + "@" + peer + ":" + parts.keySet());
        }

        @Override
        public Optional<Restored> newestComplete(String job, int peer, int peers) {
            return Optional.empty();
        }

        @Override
        public void discardNewerThan(String job, long id, int peer) {
        }

        @Override
        public String describe() {
            return "memory";
        }
    }

    private static PhysicalPlan plan(SinkFactory<Long> sink) {
        GeneratorSource<Long> source = new GeneratorSource<>("numbers", 100, i -> i);
        return new PhysicalPlan(List.of(new VertexPlan(0, 1, new HeadSpec.Source(OperatorInfo.of("source", "T.java:1"), source), List.of(),
                new TailSpec.Sink(OperatorInfo.of("sink", "T.java:2"), sink))));
    }

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void when_nothing_is_asked_then_failures_fail_the_job_and_any_sink_will_do() {
        PhysicalPlan plan = plan(new CallbackSink<>(x -> { }));
        JobConfig config = JobConfig.defaults().workers(1);
        FaultTolerance ft = FaultTolerance.of(plan, config, null, registry);
        assertThat(ft).isSameAs(FaultTolerance.NONE);
        assertThat(ft.fingerprintSuffix()).isEmpty();
        assertThat(ft.exactlyOnceBecause()).isNull();
        JobGraph graph = ft.build(plan, config, new JobContext("t"), null, -1);
        assertThat(graph.tasklets()).hasSize(1);
        assertThat(ft.status(JobStatus.RUNNING)).isEqualTo(JobStatus.RUNNING);
        assertThat(ft.afterTasklets(() -> true)).isFalse();
    }

    @Test
    void when_checkpoints_are_asked_then_every_sink_must_roll_back_and_the_peers_agree_on_the_restored_checkpoint() {
        MemoryStore store = new MemoryStore();
        JobConfig config = JobConfig.defaults().workers(1).checkpoints(store, 1_000);
        PhysicalPlan plain = plan(new CallbackSink<>(x -> { }));
        FaultTolerance ft = FaultTolerance.of(plain, config, null, registry);
        assertThat(ft).isInstanceOf(CheckpointRollback.class);
        assertThat(ft.fingerprintSuffix()).isEqualTo("\nrestoring checkpoint 0");
        assertThat(ft.exactlyOnceBecause()).isEqualTo("checkpoints");
        assertThatThrownBy(() -> ft.build(plain, config, new JobContext("t"), null, -1))
                .hasMessageContaining("sink").hasMessageContaining("is not exactly-once: with checkpoints");
        ft.close();

        PhysicalPlan collecting = plan(new CollectSink<>());
        FaultTolerance rollback = FaultTolerance.of(collecting, config, null, registry);
        JobGraph graph = rollback.build(collecting, config, new JobContext("t"), null, -1);
        assertThat(graph.parts()).hasSize(1);
        assertThat(rollback.status(JobStatus.RUNNING)).isEqualTo(JobStatus.RUNNING);
        assertThat(rollback.afterTasklets(() -> true)).isFalse();
        rollback.close();
    }

    @Test
    void when_replication_is_asked_without_the_replication_module_then_the_message_names_the_artifact() {
        PhysicalPlan plan = plan(new CollectSink<>());
        JobConfig config = JobConfig.defaults().workers(1).replication(1, 500);
        assertThatThrownBy(() -> FaultTolerance.of(plan, config, null, registry))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("dev.air:air-replication");
    }
}
