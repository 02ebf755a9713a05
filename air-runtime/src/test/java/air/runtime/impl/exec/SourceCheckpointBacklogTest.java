package air.runtime.impl.exec;

import static org.assertj.core.api.Assertions.assertThat;

import air.runtime.api.Emitter;
import air.runtime.api.SourceReader;
import air.runtime.impl.checkpoint.CheckpointCoordinator;
import air.runtime.impl.checkpoint.OperatorId;
import air.runtime.impl.ops.ChainTail;
import air.runtime.impl.ops.Inlet;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Regression: with two checkpoints under way (begun by a source that raced ahead), a lagging
 * source postponed the very checkpoints that held the backlog, and the job waited forever.
 */
class SourceCheckpointBacklogTest {

    /** The end of the lagging source's chain: passes barriers on, keeps nothing. */
    static final class Tail implements Inlet<Long>, ChainTail {
        final List<Long> barriers = new CopyOnWriteArrayList<>();

        @Override public void accept(long timestamp, Long item) { }
        @Override public void emit(Long item) { }
        @Override public void onWatermark(long watermark) { }
        @Override public void onEndOfBatch() { }
        @Override public void onComplete() { }
        @Override public void emitBarrier(long id) { barriers.add(id); }
        @Override public void endAgainAfterRestore() { }
    }

    @Test
    void when_another_source_has_begun_two_checkpoints_then_a_lagging_source_takes_them_instead_of_waiting_for_the_backlog() {
        FaultToleranceTest.MemoryStore store = new FaultToleranceTest.MemoryStore();
        CheckpointCoordinator coordinator = new CheckpointCoordinator(store, "job", "job", 0, 1, 0, 1, new SimpleMeterRegistry(),
                e -> { throw new AssertionError(e); });
        coordinator.expect(Set.of("ahead", "behind"));
        coordinator.offer(1, "ahead", new byte[1], false);
        coordinator.offer(2, "ahead", new byte[1], false);
        Checkpointing link = new Checkpointing(coordinator, TimeUnit.MILLISECONDS.toNanos(1), 0, null, () -> { });
        assertThat(link.backlogged()).isTrue();

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        boolean[] timedOut = {false};
        SourceReader<Long> idle = new SourceReader<>() { // nothing to read until both checkpoints are written (or 10 s)
            @Override
            public int read(int max, Emitter<? super Long> out) {
                if (store.written.size() >= 2) {
                    return EXHAUSTED;
                }
                if (System.nanoTime() > deadline) {
                    timedOut[0] = true;
                    return EXHAUSTED;
                }
                return 0;
            }

            @Override public long position() { return 0; }
            @Override public void seek(long position) { }
        };
        Tail tail = new Tail();
        SourceTasklet<Long> behind = new SourceTasklet<>(new JobContext("job"), "behind", idle, tail, 16, 1,
                new TaskletState("behind", new OperatorId("v0#source", "source", false, List.of(), "source"), List.of(), tail), link);
        behind.run();
        coordinator.close();

        assertThat(timedOut[0]).as("the lagging source waited on a backlog only it could drain").isFalse();
        assertThat(tail.barriers).startsWith(1L, 2L);
        assertThat(store.written).hasSizeGreaterThanOrEqualTo(2);
        assertThat(store.written.get(0)).startsWith("job#1@0:");
        assertThat(store.written.get(1)).startsWith("job#2@0:");
    }
}
