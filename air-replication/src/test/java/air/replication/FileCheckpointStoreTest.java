package air.replication;

import static org.assertj.core.api.Assertions.assertThat;

import air.runtime.api.CheckpointStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileCheckpointStoreTest {

    private static Map<String, byte[]> parts(String tag) {
        return Map.of("v0/0", ("src " + tag).getBytes(StandardCharsets.UTF_8), "v1/0", ("final " + tag).getBytes(StandardCharsets.UTF_8));
    }

    private static String text(Optional<CheckpointStore.Restored> r, String part) {
        return new String(r.orElseThrow().parts().get(part), StandardCharsets.UTF_8);
    }

    private static void writeAll(FileCheckpointStore store, long id, int peers) throws IOException {
        for (int p = 0; p < peers; p++) {
            store.write("job", id, p, peers, parts(id + "@" + p));
        }
    }

    @Test
    void the_jobs_it_holds_checkpoints_of_are_listed(@TempDir Path dir) throws IOException {
        FileCheckpointStore store = new FileCheckpointStore(dir.resolve("not-yet"), 3);
        assertThat(store.jobs()).isEmpty();
        store.write("job-b", 1, 0, 1, parts("b"));
        store.write("job-a", 1, 0, 1, parts("a"));
        assertThat(store.jobs()).containsExactly("job-a", "job-b");
    }

    @Test
    void the_newest_checkpoint_every_peer_completed_is_restored_with_this_peers_parts(@TempDir Path dir) throws IOException {
        FileCheckpointStore store = new FileCheckpointStore(dir, 3);
        assertThat(store.newestComplete("job", 0, 2)).isEmpty();
        writeAll(store, 1, 2);
        writeAll(store, 2, 2);
        store.write("job", 3, 0, 2, parts("3@0")); // peer 1 died before writing 3
        Optional<CheckpointStore.Restored> r = store.newestComplete("job", 1, 2);
        assertThat(r.orElseThrow().id()).isEqualTo(2);
        assertThat(text(r, "v0/0")).isEqualTo("src 2@1");
        assertThat(text(r, "v1/0")).isEqualTo("final 2@1");
        assertThat(store.newestComplete("other-job", 0, 2)).isEmpty();
    }

    @Test
    void a_damaged_file_is_detected_and_the_previous_checkpoint_used(@TempDir Path dir) throws IOException {
        FileCheckpointStore store = new FileCheckpointStore(dir, 3);
        writeAll(store, 1, 2);
        writeAll(store, 2, 2);
        Path newest = dir.resolve("job").resolve(FileCheckpointStore.dirName(2)).resolve(FileCheckpointStore.fileName(1, 2));
        byte[] bytes = Files.readAllBytes(newest);
        bytes[bytes.length / 2] ^= 0x40;
        Files.write(newest, bytes);
        assertThat(store.newestComplete("job", 0, 2).orElseThrow().id()).isEqualTo(1);
        Files.write(newest, Arrays.copyOf(bytes, 11)); // cut short, as by a crash mid-write without the rename
        assertThat(store.newestComplete("job", 0, 2).orElseThrow().id()).isEqualTo(1);
    }

    @Test
    void a_file_of_another_checkpoint_or_peer_is_not_taken_for_this_one(@TempDir Path dir) throws IOException {
        FileCheckpointStore store = new FileCheckpointStore(dir, 3);
        writeAll(store, 1, 2);
        writeAll(store, 2, 2);
        Path ck2 = dir.resolve("job").resolve(FileCheckpointStore.dirName(2));
        Files.copy(ck2.resolve(FileCheckpointStore.fileName(0, 2)), ck2.resolve(FileCheckpointStore.fileName(1, 2)),
                StandardCopyOption.REPLACE_EXISTING);
        assertThat(store.newestComplete("job", 0, 2).orElseThrow().id()).isEqualTo(1);
    }

    @Test
    void only_the_newest_complete_checkpoints_are_kept(@TempDir Path dir) throws IOException {
        FileCheckpointStore store = new FileCheckpointStore(dir, 2);
        for (long id = 1; id <= 5; id++) {
            writeAll(store, id, 2);
        }
        assertThat(store.ids("job")).containsExactly(4L, 5L);
        store.write("job", 6, 0, 2, parts("6@0"));
        // 6 is not complete: 4 and 5 stay, so that a restart still finds two to choose from
        assertThat(store.ids("job")).containsExactly(4L, 5L, 6L);
    }

    @Test
    void parts_of_unfinished_newer_checkpoints_are_discarded_before_a_resumed_run_writes_again(@TempDir Path dir) throws IOException {
        FileCheckpointStore store = new FileCheckpointStore(dir, 3);
        writeAll(store, 1, 2);
        store.write("job", 2, 0, 2, parts("stale"));
        store.discardNewerThan("job", 1, 0);
        store.write("job", 2, 1, 2, parts("2@1 of the new run"));
        // peer 0's stale part of 2 is gone, so 2 is not complete and cannot mix two runs
        assertThat(store.newestComplete("job", 1, 2).orElseThrow().id()).isEqualTo(1);
    }
}
