package air.runtime.impl.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.api.CheckpointStore;
import air.runtime.api.CommittingSinkWriter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The end of a job under checkpoints: an ended part's last state is captured under the first
 * checkpoint that will hold it, the final checkpoint holds every part's last state, and the
 * two-phase-commit writers are told of it only once it is complete everywhere.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FinalCheckpointTest {

    /** Keeps what each checkpoint holds, in memory. */
    static final class MemoryStore implements CheckpointStore {
        final Map<Long, Map<String, byte[]>> written = new ConcurrentHashMap<>();
        final List<Long> order = new CopyOnWriteArrayList<>();

        @Override public void write(String job, long id, int peer, int peers, Map<String, byte[]> parts) {
            written.put(id, Map.copyOf(parts));
            order.add(id);
        }
        @Override public Optional<Restored> newestComplete(String job, int peer, int peers) { return Optional.empty(); }
        @Override public void discardNewerThan(String job, long id, int peer) { }
        @Override public String describe() { return "memory"; }
    }

    /** Records the commits it is told of. */
    static final class Committer implements CommittingSinkWriter<String> {
        final List<Long> commits = new CopyOnWriteArrayList<>();

        @Override public void write(String item) { }
        @Override public void close() { }
        @Override public byte[] snapshot(long checkpointId) { return new byte[0]; }
        @Override public void restore(byte[] state) { }
        @Override public void commit(long checkpointId) { commits.add(checkpointId); }
    }

    private static CheckpointCoordinator coordinator(MemoryStore store) {
        CheckpointCoordinator c = new CheckpointCoordinator(store, "job", "job", 0, 1, 0, 1, new SimpleMeterRegistry(),
                e -> { throw new AssertionError(e); });
        c.expect(Set.of("a", "b"));
        return c;
    }

    @Test
    void an_ended_part_is_held_by_the_checkpoint_after_its_last_offer_and_after_every_one_already_written() {
        MemoryStore store = new MemoryStore();
        CheckpointCoordinator c = coordinator(store);
        assertThat(c.firstHolding("a")).as("nothing offered yet").isEqualTo(1);
        c.offer(1, "a", new byte[] {1}, false);
        c.offer(1, "b", new byte[] {1}, false); // checkpoint 1 complete here: handed to the writer
        c.offer(2, "a", new byte[] {2}, false); // 2 waits for b
        assertThat(c.firstHolding("a")).as("a offered 2: its last state stands for it from 3 on").isEqualTo(3);
        assertThat(c.firstHolding("b")).as("b did not offer 2: 2 is not handed over without it, so 2 holds its last state")
                .isEqualTo(2);
        c.finished("b", new byte[] {9});
        c.close();
        assertThat(store.written.get(2L)).as("checkpoint 2 holds b's last state").containsEntry("b", new byte[] {9});
    }

    @Test
    void the_final_checkpoint_holds_every_last_state_and_is_committed_only_once_complete_everywhere() throws Exception {
        MemoryStore store = new MemoryStore();
        CheckpointCoordinator c = coordinator(store);
        AtomicBoolean othersWroteIt = new AtomicBoolean();
        CheckpointCommits commits = new CheckpointCommits("job", id -> id < CheckpointCoordinator.FINAL || othersWroteIt.get())
                .listenTo(c);
        Committer writer = new Committer();
        commits.register(writer);
        c.offer(1, "a", new byte[] {1}, false);
        c.offer(1, "b", new byte[] {1}, false);
        c.finished("a", new byte[] {7});
        c.finished("b", new byte[] {8});
        assertThat(c.writeFinal()).isTrue();

        assertThatThrownBy(() -> commits.awaitCommitted(CheckpointCoordinator.FINAL, 300, 0, () -> false, () -> { }))
                .as("the other peers have not written it").isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("the final checkpoint").hasMessageContaining("was not complete on every peer within 300 ms");
        assertThat(writer.commits).doesNotContain(CheckpointCoordinator.FINAL);
        assertThat(store.written.get(CheckpointCoordinator.FINAL)).containsEntry("a", new byte[] {7}).containsEntry("b", new byte[] {8});

        othersWroteIt.set(true);
        assertThat(commits.awaitCommitted(CheckpointCoordinator.FINAL, 10_000, 0, () -> false, () -> { })).isTrue();
        assertThat(writer.commits).endsWith(CheckpointCoordinator.FINAL);
        assertThat(c.writeFinal()).as("written already").isFalse();
        commits.close();
        c.close();
    }

    /**
     * A peer whose tasklets all ended takes no checkpoints of its own, so the others' later ones
     * would never complete and their sinks never commit: while it waits for the final checkpoint it
     * writes its last states under the newest id another peer began (once, newer ones only).
     */
    @Test
    void a_peer_whose_tasklets_all_ended_stands_in_for_the_checkpoints_the_others_still_take() {
        MemoryStore store = new MemoryStore();
        CheckpointCoordinator c = coordinator(store);
        c.offer(1, "a", new byte[] {1}, false);
        c.offer(1, "b", new byte[] {1}, false);
        c.finished("a", new byte[] {7});
        c.standIn(5);
        c.finished("b", new byte[] {8});
        c.standIn(5);
        assertThat(c.writeFinal()).isTrue();
        c.standIn(1);
        c.standIn(5);
        c.standIn(5);
        c.standIn(4);
        c.standIn(CheckpointCoordinator.FINAL);
        c.close();
        assertThat(store.order).as("before the final checkpoint nothing; then 5 once; older ones and the final id never")
                .containsExactly(1L, CheckpointCoordinator.FINAL, 5L);
        assertThat(store.written.get(5L)).containsEntry("a", new byte[] {7}).containsEntry("b", new byte[] {8});
    }

    /**
     * A peer with no two-phase-commit writer still waits, standing in, until the final checkpoint
     * is complete everywhere: the others' sinks may need its stand-ins to commit.
     */
    @Test
    void a_peer_without_committing_writers_waits_for_the_final_checkpoint_all_the_same() throws Exception {
        AtomicBoolean othersWroteIt = new AtomicBoolean();
        CheckpointCommits commits = new CheckpointCommits("job", id -> othersWroteIt.get());
        AtomicInteger standIns = new AtomicInteger();
        assertThatThrownBy(() -> commits.awaitCommitted(CheckpointCoordinator.FINAL, 200, 0, () -> false, standIns::incrementAndGet))
                .hasMessageContaining("was not complete on every peer");
        assertThat(standIns.get()).as("it stood in meanwhile").isPositive();
        othersWroteIt.set(true);
        assertThat(commits.awaitCommitted(CheckpointCoordinator.FINAL, 10_000, 0, () -> false, () -> { })).isTrue();
        commits.close();
    }

    @Test
    void a_wait_for_the_final_commit_ends_when_the_job_fails_meanwhile() throws Exception {
        CheckpointCommits commits = new CheckpointCommits("job", id -> false);
        commits.register(new Committer());
        assertThat(commits.awaitCommitted(CheckpointCoordinator.FINAL, 0, 0, () -> true, () -> { })).isFalse();
        commits.close();
    }
}
