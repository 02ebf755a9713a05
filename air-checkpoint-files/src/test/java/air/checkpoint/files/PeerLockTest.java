package air.checkpoint.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.CheckpointMismatchException;
import air.runtime.api.CheckpointStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** One run per job and peer on a checkpoint directory: a second is refused naming the first; a dead run's lock does not linger. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PeerLockTest {

    @Test
    void a_second_run_of_the_same_job_and_peer_is_refused_naming_the_first_and_may_claim_once_it_ended(@TempDir Path dir)
            throws IOException {
        FileCheckpointStore first = new FileCheckpointStore(dir, 3);
        FileCheckpointStore second = new FileCheckpointStore(dir, 3);
        assertThat(first.run()).isNotEqualTo(second.run());
        CheckpointStore.Claim held = first.claim("job", 0, 2);
        assertThat(held.earlierRun()).as("the first run ever").isFalse();
        assertThatThrownBy(() -> second.claim("job", 0, 2))
                .isInstanceOf(CheckpointMismatchException.class)
                .hasMessageContaining("in use by another run").hasMessageContaining(dir.resolve("job").toString())
                .hasMessageContaining("run=" + first.run()).hasMessageContaining("pid=" + ProcessHandle.current().pid())
                .hasMessageContaining("started=").hasMessageContaining("peer=0/2");
        try (CheckpointStore.Claim otherPeer = second.claim("job", 1, 2); CheckpointStore.Claim otherJob = second.claim("job2", 0, 2)) {
            assertThat(otherPeer.earlierRun()).isFalse(); // the peers of one run, and other jobs, share the directory
            assertThat(otherJob.earlierRun()).isFalse();
        }
        held.close();
        held.close(); // twice does nothing
        try (CheckpointStore.Claim again = second.claim("job", 0, 2)) {
            assertThat(again.earlierRun()).as("the first never started (refused, say)").isFalse();
            again.started();
        }
        try (CheckpointStore.Claim again = second.claim("job", 0, 2)) {
            assertThat(again.earlierRun()).as("a run of this job and peer started before").isTrue();
            assertThat(Files.readString(dir.resolve("job").resolve(PeerLock.fileName(0, 2)))).contains("run=" + second.run());
        }
    }

    @Test
    void a_lock_held_by_another_process_refuses_and_is_free_again_once_that_process_is_killed(@TempDir Path dir) throws Exception {
        Process holder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), LockHolderMain.class.getName(), dir.toString(), "job")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine(); // the child has the lock once it says so
            assertThat(line).startsWith("CLAIMED ");
            String run = line.substring("CLAIMED ".length());
            FileCheckpointStore store = new FileCheckpointStore(dir, 3);
            assertThatThrownBy(() -> store.claim("job", 0, 1)).isInstanceOf(CheckpointMismatchException.class)
                    .hasMessageContaining("run=" + run).hasMessageContaining("pid=" + holder.pid()).hasMessageNotContaining("this JVM");
            holder.destroyForcibly(); // kill -9: the process cannot release anything itself
            assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
            try (CheckpointStore.Claim claim = store.claim("job", 0, 1)) {
                assertThat(claim.earlierRun()).as("the killed run never said it started").isFalse();
            }
        } finally {
            holder.destroyForcibly();
            holder.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    @SuppressWarnings("try") // the claim is held for the block
    void checkpoints_of_a_live_run_are_not_discarded(@TempDir Path dir) throws IOException {
        FileCheckpointStore live = new FileCheckpointStore(dir, 3);
        FileCheckpointStore other = new FileCheckpointStore(dir, 3);
        FileCheckpointStore lockOnly = new FileCheckpointStore(dir, 3);
        lockOnly.claim("refused", 0, 1).close();
        assertThat(lockOnly.jobs()).as("a run that wrote no checkpoint leaves none to list").isEmpty();
        try (CheckpointStore.Claim claim = live.claim("old", 1, 2)) {
            live.write("old", 1, 1, 2, Map.of("v0/1", new byte[] {1}));
            assertThatThrownBy(() -> other.discard("old")).isInstanceOf(CheckpointMismatchException.class)
                    .hasMessageContaining("a run of it is live").hasMessageContaining("run=" + live.run());
            assertThat(other.ids("old")).containsExactly(1L);
        }
        other.discard("old");
        assertThat(other.jobs()).isEmpty();
        assertThat(dir.resolve("old")).as("locks and all").doesNotExist();
    }

    @Test
    @SuppressWarnings("try") // the claim is held for the block
    void a_claim_removes_the_temporary_files_its_peer_left_when_killed_and_no_one_elses(@TempDir Path dir) throws IOException {
        FileCheckpointStore earlier = new FileCheckpointStore(dir, 3);
        earlier.write("job", 1, 0, 2, Map.of("v0/0", new byte[] {1}));
        Path ck = dir.resolve("job").resolve(FileCheckpointStore.dirName(1));
        Path mine = ck.resolve(FileCheckpointStore.fileName(0, 2) + "." + earlier.run() + ".tmp");
        Path legacy = ck.resolve(FileCheckpointStore.fileName(0, 2) + ".tmp");
        Path othersPeer = ck.resolve(FileCheckpointStore.fileName(1, 2) + ".0123456789abcdef.tmp");
        for (Path p : List.of(mine, legacy, othersPeer)) {
            Files.writeString(p, "cut short by kill -9");
        }
        FileCheckpointStore next = new FileCheckpointStore(dir, 3);
        try (CheckpointStore.Claim claim = next.claim("job", 0, 2)) {
            assertThat(mine).doesNotExist();
            assertThat(legacy).doesNotExist();
            assertThat(othersPeer).as("peer 1's run may be writing it").exists();
            assertThat(ck.resolve(FileCheckpointStore.fileName(0, 2))).as("the complete file stays").exists();
        }
    }
}
