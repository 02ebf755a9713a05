package air.runtime.impl.exec;

import static org.assertj.core.api.Assertions.assertThat;

import air.runtime.api.CheckpointStore;
import air.runtime.impl.checkpoint.CheckpointCoordinator;
import air.wire.WireOut;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Regression (a replicated takeover, YsbMultiHostIT): a tasklet taken over from a lost peer catches
 * up on the barriers it missed, and its part of a checkpoint already handed to the writer is
 * dropped; its next part must then be whole, or it holds changes since a part no checkpoint has
 * (a replica refused such a copy as malformed and the job failed).
 */
class TakenOverPartTest {

    /** Keeps chains, records each write as "id/base". */
    static final class ChainStore implements CheckpointStore {
        final List<String> written = new CopyOnWriteArrayList<>();

        @Override public boolean keepsChains() { return true; }
        @Override public void write(String job, long id, int peer, int peers, Map<String, byte[]> parts) { write(job, id, id, peer, peers, parts); }
        @Override public void write(String job, long id, long base, int peer, int peers, Map<String, byte[]> parts) {
            written.add(id + "/" + base);
        }
        @Override public Optional<Restored> newestComplete(String job, int peer, int peers) { return Optional.empty(); }
        @Override public void discardNewerThan(String job, long id, int peer) { }
        @Override public String describe() { return "memory"; }
    }

    @Test
    void a_part_offered_for_a_checkpoint_already_handed_to_the_writer_is_dropped_and_the_next_part_is_whole() {
        CheckpointCoordinator coordinator = new CheckpointCoordinator(new ChainStore(), "job", "job", 0, 1, 0, 3, new SimpleMeterRegistry(),
                e -> { throw new AssertionError(e); });
        coordinator.expect(Set.of("own"));
        Checkpointing own = new Checkpointing(coordinator, TimeUnit.SECONDS.toNanos(1), 0, null, () -> { });
        Checkpointing taken = new Checkpointing(coordinator, TimeUnit.SECONDS.toNanos(1), 0, null, () -> { });

        assertThat(own.full(1)).as("the first checkpoint of a chain").isTrue();
        own.offer(1, "own", new WireOut(8).putLong(1), false); // every expected part in: handed to the writer
        coordinator.expectMore(Set.of("taken"));
        assertThat(taken.full(1)).isTrue();
        taken.offer(1, "taken", new WireOut(8).putLong(1), false); // too late for checkpoint 1: dropped

        assertThat(own.full(2)).as("checkpoint 2 holds changes").isFalse();
        assertThat(taken.full(2)).as("the taken-over part's previous part is in no checkpoint: whole").isTrue();
        own.offer(2, "own", new WireOut(8), true);
        taken.offer(2, "taken", new WireOut(8), false);
        assertThat(own.full(3)).isFalse();
        assertThat(taken.full(3)).as("its part of 2 was taken: changes from here").isFalse();
        coordinator.close();
    }

    @Test
    void a_checkpoint_of_changes_whose_parts_are_all_whole_is_written_whole_and_starts_a_chain_of_its_own() {
        ChainStore store = new ChainStore();
        CheckpointCoordinator coordinator = new CheckpointCoordinator(store, "job", "job", 0, 1, 0, 8, new SimpleMeterRegistry(),
                e -> { throw new AssertionError(e); });
        coordinator.expect(Set.of("join", "window"));
        Checkpointing join = new Checkpointing(coordinator, TimeUnit.SECONDS.toNanos(1), 0, null, () -> { });
        Checkpointing window = new Checkpointing(coordinator, TimeUnit.SECONDS.toNanos(1), 0, null, () -> { });
        for (long id = 1; id <= 3; id++) {
            join.full(id);
            window.full(id);
            join.offer(id, "join", new WireOut(8), false); // an operator that writes whole state only
            window.offer(id, "window", new WireOut(8), id == 3); // writes changes from checkpoint 3 on
        }
        coordinator.close();
        assertThat(store.written).as("1 whole as scheduled; 2 decided as changes but all whole; 3 changes since 2")
                .containsExactly("1/1", "2/2", "3/2");
    }
}
