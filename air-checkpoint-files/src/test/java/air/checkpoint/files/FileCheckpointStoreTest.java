package air.checkpoint.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.CheckpointMismatchException;
import air.runtime.api.CheckpointStore;
import com.sun.management.ThreadMXBean;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FileCheckpointStoreTest {

    /** What {@code body} logs (slf4j-simple writes to System.err), with the value it returns. */
    record Logged<T>(T value, String log) { }

    interface IoCall<T> {
        T call() throws IOException;
    }

    static <T> Logged<T> logged(IoCall<T> body) throws IOException {
        PrintStream saved = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            T value = body.call();
            return new Logged<>(value, captured.toString(StandardCharsets.UTF_8));
        } finally {
            System.setErr(saved);
        }
    }

    static Path file(Path dir, long id, int peer, int peers) {
        return dir.resolve("job").resolve(FileCheckpointStore.dirName(id)).resolve(FileCheckpointStore.fileName(peer, peers));
    }

    /** Every file left under {@code dir} whose name ends in .tmp. */
    private static List<Path> temporaries(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            return all.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList();
        }
    }

    /** A file as format 1 wrote it (the layout before the version field), encoded here independently of the store. */
    private static byte[] format1(String job, long id, int peer, int peers, Map<String, byte[]> parts) {
        return olderFormat(ByteBuffer.allocate(8).put("AIRCKPT1".getBytes(StandardCharsets.US_ASCII)), job, id, peer, peers, parts);
    }

    /** A file as format 3 wrote it (a version field and the run, but no base), encoded here independently of the store. */
    private static byte[] format3(String job, long id, int peer, int peers, Map<String, byte[]> parts) {
        byte[] run = "an-older-run".getBytes(StandardCharsets.UTF_8);
        ByteBuffer head = ByteBuffer.allocate(16 + run.length).put("AIRCKPTV".getBytes(StandardCharsets.US_ASCII)).putInt(3)
                .putInt(run.length).put(run);
        return olderFormat(head, job, id, peer, peers, parts);
    }

    /** {@code head} (filled), then the layout formats 1 to 3 share: job, checkpoint, peer, peer count, parts, CRC32C. */
    private static byte[] olderFormat(ByteBuffer head, String job, long id, int peer, int peers, Map<String, byte[]> parts) {
        ByteBuffer b = ByteBuffer.allocate(4096);
        byte[] jobBytes = job.getBytes(StandardCharsets.UTF_8);
        b.put(head.array(), 0, head.position()).putInt(jobBytes.length).put(jobBytes).putLong(id).putInt(peer).putInt(peers)
                .putInt(parts.size());
        parts.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
            byte[] name = e.getKey().getBytes(StandardCharsets.UTF_8);
            b.putInt(name.length).put(name).putInt(e.getValue().length).put(e.getValue());
        });
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.putLong(crc.getValue());
        return Arrays.copyOf(b.array(), b.position());
    }

    private static Map<String, byte[]> parts(String tag) {
        return Map.of("v0/0", ("src " + tag).getBytes(StandardCharsets.UTF_8), "v1/0", ("final " + tag).getBytes(StandardCharsets.UTF_8));
    }

    static String text(Optional<CheckpointStore.Restored> r, String part) {
        return new String(r.orElseThrow().parts().get(part), StandardCharsets.UTF_8);
    }

    static void writeAll(FileCheckpointStore store, long id, int peers) throws IOException {
        for (int p = 0; p < peers; p++) {
            store.write("job", id, p, peers, parts(id + "@" + p));
        }
    }

    /** Every peer's part of checkpoint {@code id}, whose chain starts from {@code base} (whole when it is {@code id}). */
    private static void writeAll(FileCheckpointStore store, long id, long base, int peers) throws IOException {
        for (int p = 0; p < peers; p++) {
            store.write("job", id, base, p, peers, parts(id + "@" + p));
        }
    }

    /** The checkpoints of a restored chain, oldest first, as the tags their parts carry ({@code id@peer}). */
    private static List<String> tags(CheckpointStore.Restored r) {
        return r.chain().stream().map(p -> new String(p.get("v0/0"), StandardCharsets.UTF_8).substring("src ".length())).toList();
    }

    /** Flips a byte in the middle of {@code file}: its checksum no longer matches. */
    private static void damage(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length / 2] ^= 0x40;
        Files.write(file, bytes);
    }

    /**
     * A restore checks every peer's file but keeps only its own parts: the others are mapped and
     * checked, never read into the heap (a heap smaller than the whole world's checkpoint restores).
     */
    @Test
    void a_restore_holds_only_its_own_parts_in_the_heap(@TempDir Path dir) throws IOException {
        byte[] big = new byte[32 << 20];
        new Random(7).nextBytes(big);
        assertThat(allocatedToRestoreBesideLargeFiles(new FileCheckpointStore(dir, 3), big))
                .as("bytes allocated to restore peer 0, beside 3 x 32 MiB files of the others").isLessThan(8L << 20);
    }

    /**
     * Writes checkpoint 1 of a world of four: a small part of peer 0's and {@code big} for each
     * other peer; restores peer 0 (checking its part) and returns the bytes that restore allocated.
     */
    static long allocatedToRestoreBesideLargeFiles(FileCheckpointStore store, byte[] big) throws IOException {
        store.write("job", 1, 0, 4, Map.of("v0#0", "mine".getBytes(StandardCharsets.UTF_8)));
        for (int peer = 1; peer < 4; peer++) {
            store.write("job", 1, peer, 4, Map.of("v0#" + peer, big));
        }
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        Optional<CheckpointStore.Restored> restored = store.newestComplete("job", 0, 4);
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(restored).isPresent();
        assertThat(new String(restored.get().parts().get("v0#0"), StandardCharsets.UTF_8)).isEqualTo("mine");
        return allocated;
    }

    @Test
    void what_the_store_creates_is_its_users_alone(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(dir.getFileSystem().supportedFileAttributeViews().contains("posix"), "no POSIX permissions here");
        Path root = dir.resolve("checkpoints");
        FileCheckpointStore store = new FileCheckpointStore(root, 3);
        try (CheckpointStore.Claim claim = store.claim("job", 0, 1)) {
            claim.started();
            store.write("job", 1, 0, 1, parts("a"));
        }
        List<String> notOwnerOnly = new ArrayList<>();
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.toList()) {
                String want = Files.isDirectory(p) ? "rwx------" : "rw-------";
                String got = PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
                if (!got.equals(want)) {
                    notOwnerOnly.add(dir.relativize(p) + " " + got);
                }
            }
        }
        try (Stream<Path> files = Files.walk(root)) {
            assertThat(files.filter(Files::isRegularFile).map(p -> p.getFileName().toString()))
                    .anyMatch(n -> n.endsWith(".ckpt")).anyMatch(n -> n.endsWith(".lock"));
        }
        assertThat(notOwnerOnly).as("created with more than owner-only permissions").isEmpty();
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

    /**
     * A part of megabytes goes to the channel in slices of at most {@link CheckpointFile#SLICE_BYTES}
     * (each a reused temporary buffer, not one of the part's size), through a channel that takes
     * only part of what it is given, and reads back byte for byte.
     */
    @Test
    void a_large_part_is_written_in_slices_and_reads_back_whole() throws Exception {
        byte[] big = new byte[3 * CheckpointFile.SLICE_BYTES + 12_345];
        new Random(7).nextBytes(big);
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        List<Integer> offered = new ArrayList<>();
        WritableByteChannel stingy = new WritableByteChannel() {
            @Override
            public int write(ByteBuffer src) {
                offered.add(src.remaining());
                int n = Math.min(src.remaining(), 100_000); // a channel may take less than it is given
                byte[] b = new byte[n];
                src.get(b);
                sink.write(b, 0, n);
                return n;
            }

            @Override
            public boolean isOpen() {
                return true;
            }

            @Override
            public void close() {
            }
        };
        CheckpointFile.write(stingy, "job", 4, 4, 1, 2, "run-1", Map.of("a", big, "b", new byte[] {1, 2, 3}),
                CheckpointKey.NONE);
        assertThat(offered).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(CheckpointFile.SLICE_BYTES));
        CheckpointFile.Contents back = CheckpointFile.decode(sink.toByteArray(), "job", 4, 1, 2, CheckpointKey.NONE);
        assertThat(back.parts().get("a")).isEqualTo(big);
        assertThat(back.parts().get("b")).containsExactly(1, 2, 3);
        assertThat(back.run()).isEqualTo("run-1");
    }

    @Test
    void every_file_carries_its_format_version_and_the_run_that_wrote_it(@TempDir Path dir) throws Exception {
        FileCheckpointStore store = new FileCheckpointStore(dir, 3);
        store.write("job", 1, 0, 1, parts("1"));
        byte[] bytes = Files.readAllBytes(file(dir, 1, 0, 1));
        assertThat(new String(bytes, 0, 8, StandardCharsets.US_ASCII)).isEqualTo("AIRCKPTV");
        assertThat(CheckpointFile.formatOf(bytes)).isEqualTo(CheckpointFile.FORMAT).isEqualTo(4);
        assertThat(CheckpointFile.decode(bytes, "job", 1, 0, 1, CheckpointKey.NONE).run()).isEqualTo(store.run());
        assertThat(CheckpointFile.decode(bytes, "job", 1, 0, 1, CheckpointKey.NONE).base()).as("a whole checkpoint is its own base").isEqualTo(1);
        store.write("job", 2, 1, 0, 1, parts("2"));
        assertThat(CheckpointFile.decode(Files.readAllBytes(file(dir, 2, 0, 1)), "job", 2, 0, 1, CheckpointKey.NONE).base()).isEqualTo(1);
        assertThat(CheckpointFile.header(file(dir, 2, 0, 1), "job", 2, 0, 1))
                .isEqualTo(new CheckpointFile.Header(4, store.run(), "job", 2, 0, 1, 1));
        assertThatThrownBy(() -> CheckpointFile.header(file(dir, 2, 0, 1), "job", 3, 0, 1)).isInstanceOf(CheckpointFile.DamagedFile.class)
                .hasMessageContaining("expected job checkpoint 3");
    }

    @Test
    void files_of_formats_1_and_2_written_before_operator_ids_are_refused_naming_the_file_and_an_older_air(@TempDir Path dir)
            throws IOException {
        Files.createDirectories(file(dir, 1, 0, 2).getParent());
        Files.write(file(dir, 1, 0, 2), format1("job", 1, 0, 2, parts("1@0")));
        Files.write(file(dir, 1, 1, 2), format1("job", 1, 1, 2, parts("1@1")));
        FileCheckpointStore store = new FileCheckpointStore(dir, 3);
        assertThatThrownBy(() -> store.newestComplete("job", 1, 2)).isInstanceOf(CheckpointMismatchException.class)
                .hasMessageContaining(file(dir, 1, 0, 2).toString()).hasMessageContaining("format 1")
                .hasMessageContaining("not by operator id").hasMessageContaining("an older AIR");
        store.write("job", 2, 0, 2, parts("2@0"));
        Path two = file(dir, 2, 1, 2);
        store.write("job", 2, 1, 2, parts("2@1"));
        byte[] bytes = Files.readAllBytes(two);
        ByteBuffer.wrap(bytes).putInt(8, 2); // format 2, as the AIR before operator ids wrote it
        Files.write(two, bytes);
        assertThatThrownBy(() -> store.newestComplete("job", 1, 2)).isInstanceOf(CheckpointMismatchException.class)
                .hasMessageContaining(two.toString()).hasMessageContaining("format 2").hasMessageContaining("an older AIR");
    }

    @Test
    void a_file_of_an_unknown_format_is_refused_naming_it_and_its_version_never_skipped(@TempDir Path dir) throws IOException {
        FileCheckpointStore store = new FileCheckpointStore(dir, 3);
        writeAll(store, 1, 2);
        writeAll(store, 2, 2);
        Path newer = file(dir, 2, 1, 2);
        byte[] bytes = Files.readAllBytes(newer);
        ByteBuffer.wrap(bytes).putInt(8, 7); // format 7, as a newer AIR might write it (its checksum, whatever it is, not ours)
        Files.write(newer, bytes);
        assertThatThrownBy(() -> store.newestComplete("job", 0, 2)).isInstanceOf(CheckpointMismatchException.class)
                .hasMessageContaining(newer.toString()).hasMessageContaining("format 7")
                .hasMessageContaining("reads formats 4 and 5 only").hasMessageContaining("newer AIR");
        bytes[7] = 'X'; // neither format 1 nor a version field: not ours, so damaged, and the previous one is used
        Files.write(newer, bytes);
        assertThat(store.newestComplete("job", 0, 2).orElseThrow().id()).isEqualTo(1);
    }

    @Test
    void any_read_error_falls_back_to_the_previous_checkpoint_with_a_warning_naming_the_file(@TempDir Path dir) throws IOException {
        FileCheckpointStore store = new FileCheckpointStore(dir, 3);
        writeAll(store, 1, 2);
        writeAll(store, 2, 2);
        Path unreadable = file(dir, 2, 1, 2);
        Files.delete(unreadable);
        Files.createDirectory(unreadable); // reading it fails with an IOException that is neither "missing" nor a bad checksum
        Logged<Optional<CheckpointStore.Restored>> r = logged(() -> store.newestComplete("job", 0, 2));
        assertThat(r.value().orElseThrow().id()).isEqualTo(1);
        assertThat(r.log()).contains("WARN").contains("checkpoint 2 of job job").contains(unreadable + " cannot be read")
                .contains("trying the previous one");
        Files.delete(unreadable);
    }

    @Test
    void a_write_that_fails_leaves_no_temporary_file_and_the_next_one_succeeds(@TempDir Path dir) throws IOException {
        FileCheckpointStore store = new FileCheckpointStore(dir, 3);
        writeAll(store, 1, 1);
        Path target = file(dir, 2, 0, 1);
        Files.createDirectories(target.resolve("in-the-way")); // the rename onto it fails, after the temporary file was written
        assertThatThrownBy(() -> store.write("job", 2, 0, 1, parts("2"))).isInstanceOf(IOException.class)
                .hasMessageContaining("cannot write " + target);
        assertThat(temporaries(dir)).isEmpty();
        Files.delete(target.resolve("in-the-way"));
        Files.delete(target);
        store.write("job", 3, 0, 1, parts("3"));
        assertThat(store.newestComplete("job", 0, 1).orElseThrow().id()).isEqualTo(3);
    }

    @Test
    void a_full_disk_fails_the_write_cleans_its_temporary_file_and_the_next_smaller_write_succeeds(@TempDir Path dir) throws Exception {
        Path mount = Files.createDirectory(dir.resolve("small-tmpfs"));
        boolean mounted = false;
        try {
            Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", mount.toString()).redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            mounted = p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
            Assumptions.assumeTrue(mounted, "cannot mount a small tmpfs here (needs root and mount(8)): " + out.strip()
                    + "; the full disk is covered by the rename fault above and by CheckpointRecoveryTest's injected store fault");
            FileCheckpointStore store = new FileCheckpointStore(mount, 3);
            store.write("job", 1, 0, 1, parts("small"));
            Map<String, byte[]> huge = Map.of("v0/0", new byte[1024 * 1024]);
            assertThatThrownBy(() -> store.write("job", 2, 0, 1, huge)).isInstanceOf(IOException.class)
                    .hasMessageContaining("cannot write " + file(mount, 2, 0, 1)).hasMessageContaining("No space left");
            assertThat(temporaries(mount)).as("the failed write's temporary file is gone").isEmpty();
            assertThat(store.ids("job")).containsExactly(1L);
            store.write("job", 3, 0, 1, parts("small again"));
            assertThat(store.newestComplete("job", 0, 1).orElseThrow().id()).isEqualTo(3);
        } finally {
            if (mounted) {
                Process u = new ProcessBuilder("umount", mount.toString()).redirectErrorStream(true).start();
                u.getInputStream().readAllBytes();
                assertThat(u.waitFor(30, TimeUnit.SECONDS) && u.exitValue() == 0).as("unmounted " + mount).isTrue();
            }
            Files.deleteIfExists(mount);
        }
    }

    @Test
    void files_of_format_3_written_before_chains_are_refused_naming_the_file_and_an_older_air(@TempDir Path dir) throws IOException {
        Files.createDirectories(file(dir, 1, 0, 2).getParent());
        Files.write(file(dir, 1, 0, 2), format3("job", 1, 0, 2, parts("1@0")));
        Files.write(file(dir, 1, 1, 2), format3("job", 1, 1, 2, parts("1@1")));
        FileCheckpointStore store = new FileCheckpointStore(dir, 3);
        assertThatThrownBy(() -> store.newestComplete("job", 0, 2)).isInstanceOf(CheckpointMismatchException.class)
                .hasMessageContaining(file(dir, 1, 0, 2).toString()).hasMessageContaining("format 3")
                .hasMessageContaining("reads formats 4 and 5 only").hasMessageContaining("no chains").hasMessageContaining("an older AIR");
    }

    @Test
    void a_chain_is_restored_with_every_checkpoint_from_its_whole_base_for_every_peer(@TempDir Path dir) throws IOException {
        FileCheckpointStore store = new FileCheckpointStore(dir, 3);
        assertThat(store.keepsChains()).isTrue();
        writeAll(store, 1, 1, 2);
        writeAll(store, 2, 1, 2);
        writeAll(store, 3, 1, 2);
        for (int p = 0; p < 2; p++) {
            CheckpointStore.Restored r = store.newestComplete("job", p, 2).orElseThrow();
            assertThat(r.id()).isEqualTo(3);
            assertThat(tags(r)).containsExactly("1@" + p, "2@" + p, "3@" + p);
            assertThat(new String(r.parts().get("v1/0"), StandardCharsets.UTF_8)).isEqualTo("final 3@" + p);
        }
    }

    @Test
    void a_damaged_file_in_the_middle_of_a_chain_makes_the_later_checkpoints_unusable_for_every_peer(@TempDir Path dir)
            throws IOException {
        FileCheckpointStore store = new FileCheckpointStore(dir, 3);
        writeAll(store, 1, 1, 2);
        writeAll(store, 2, 1, 2);
        writeAll(store, 3, 1, 2);
        damage(file(dir, 2, 1, 2));
        for (int p = 0; p < 2; p++) {
            int peer = p;
            Logged<Optional<CheckpointStore.Restored>> r = logged(() -> store.newestComplete("job", peer, 2));
            assertThat(r.value().orElseThrow().id()).isEqualTo(1);
            assertThat(tags(r.value().orElseThrow())).containsExactly("1@" + p);
            assertThat(r.log()).contains("WARN").contains("checkpoint 3 of job job").contains("checkpoint 2 of job job")
                    .contains("peer 1's chain from checkpoint 1 is broken: " + file(dir, 2, 1, 2) + ": checksum mismatch")
                    .contains("trying the previous one");
        }
    }

    @Test
    void a_missing_file_in_the_middle_of_a_chain_is_never_restored_around_even_by_a_peer_whose_own_chain_is_whole(@TempDir Path dir)
            throws IOException {
        FileCheckpointStore store = new FileCheckpointStore(dir, 3);
        writeAll(store, 1, 1, 2);
        writeAll(store, 2, 1, 2);
        writeAll(store, 3, 1, 2);
        Files.delete(file(dir, 2, 1, 2));
        // peer 0's own chain 1, 2, 3 is whole and every peer's file of 3 is there, yet peer 1 could not restore 3: neither may peer 0
        Logged<Optional<CheckpointStore.Restored>> r = logged(() -> store.newestComplete("job", 0, 2));
        assertThat(r.value().orElseThrow().id()).isEqualTo(1);
        assertThat(tags(r.value().orElseThrow())).containsExactly("1@0");
        assertThat(r.log()).contains("checkpoint 3 of job job").contains("peer 1's chain from checkpoint 1 is broken: " + file(dir, 2, 1, 2)
                + " is missing").contains("checkpoint 2 of job job").contains("peer 1 never completed it");
        assertThat(store.newestComplete("job", 1, 2).orElseThrow().id()).isEqualTo(1);
    }

    @Test
    void a_checkpoint_whose_chain_records_another_base_is_unusable(@TempDir Path dir) throws IOException {
        FileCheckpointStore store = new FileCheckpointStore(dir, 3);
        writeAll(store, 1, 1, 2);
        store.write("job", 2, 1, 0, 2, parts("2@0"));
        store.write("job", 2, 2, 1, 2, parts("2@1")); // whole: peer 1's chain starts anew at 2
        store.write("job", 3, 1, 0, 2, parts("3@0"));
        store.write("job", 3, 1, 1, 2, parts("3@1")); // claims the chain from 1, which peer 1's file of 2 does not continue
        Logged<Optional<CheckpointStore.Restored>> r = logged(() -> store.newestComplete("job", 0, 2));
        assertThat(r.value().orElseThrow().id()).isEqualTo(2);
        assertThat(tags(r.value().orElseThrow())).containsExactly("1@0", "2@0");
        assertThat(r.log()).contains("checkpoint 3 of job job").contains(file(dir, 2, 1, 2) + " records base 2");
        assertThat(tags(store.newestComplete("job", 1, 2).orElseThrow())).containsExactly("2@1");
    }

    @Test
    void peers_whose_chains_start_from_different_bases_restore_the_same_checkpoint(@TempDir Path dir) throws IOException {
        FileCheckpointStore store = new FileCheckpointStore(dir, 2);
        writeAll(store, 1, 1, 2);
        store.write("job", 2, 1, 0, 2, parts("2@0")); // peer 1's write of 2 failed: its next checkpoint is whole
        store.write("job", 3, 1, 0, 2, parts("3@0"));
        store.write("job", 3, 3, 1, 2, parts("3@1"));
        store.write("job", 4, 1, 0, 2, parts("4@0"));
        store.write("job", 4, 3, 1, 2, parts("4@1"));
        // 3 and 4 are the newest 2 complete ones; peer 0's files of them need 1 and 2
        assertThat(store.ids("job")).containsExactly(1L, 2L, 3L, 4L);
        CheckpointStore.Restored zero = store.newestComplete("job", 0, 2).orElseThrow();
        CheckpointStore.Restored one = store.newestComplete("job", 1, 2).orElseThrow();
        assertThat(zero.id()).isEqualTo(4);
        assertThat(tags(zero)).containsExactly("1@0", "2@0", "3@0", "4@0");
        assertThat(one.id()).isEqualTo(4);
        assertThat(tags(one)).containsExactly("3@1", "4@1");
        damage(file(dir, 2, 0, 2)); // only peer 0's chain is broken, yet peer 1 must not resume from 3 or 4 without peer 0
        assertThat(tags(store.newestComplete("job", 0, 2).orElseThrow())).containsExactly("1@0");
        assertThat(tags(store.newestComplete("job", 1, 2).orElseThrow())).containsExactly("1@1");
    }

    @Test
    void pruning_keeps_the_chains_of_the_kept_checkpoints_and_drops_what_is_older_than_their_bases(@TempDir Path dir) throws IOException {
        FileCheckpointStore store = new FileCheckpointStore(dir, 2);
        writeAll(store, 1, 1, 2);
        for (long id = 2; id <= 6; id++) {
            writeAll(store, id, 1, 2);
        }
        assertThat(store.ids("job")).as("5 and 6 are kept, and with them their chain from 1").containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
        assertThat(tags(store.newestComplete("job", 1, 2).orElseThrow())).containsExactly("1@1", "2@1", "3@1", "4@1", "5@1", "6@1");
        writeAll(store, 7, 7, 2);
        assertThat(store.ids("job")).as("6 is still kept").containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
        writeAll(store, 8, 7, 2);
        assertThat(store.ids("job")).as("7 and 8 are kept, and need nothing older").containsExactly(7L, 8L);
        assertThat(tags(store.newestComplete("job", 0, 2).orElseThrow())).containsExactly("7@0", "8@0");
    }

    @Test
    void a_kept_file_whose_header_cannot_be_read_stops_pruning_until_it_is_no_longer_kept(@TempDir Path dir) throws IOException {
        FileCheckpointStore store = new FileCheckpointStore(dir, 2);
        for (long id = 1; id <= 3; id++) {
            writeAll(store, id, 2);
        }
        assertThat(store.ids("job")).containsExactly(2L, 3L);
        Path cut = file(dir, 3, 1, 2);
        Files.write(cut, Arrays.copyOf(Files.readAllBytes(cut), 11)); // its base is unknown, so is what it needs
        Logged<Void> r = logged(() -> {
            writeAll(store, 4, 2);
            return null;
        });
        assertThat(store.ids("job")).containsExactly(2L, 3L, 4L);
        assertThat(r.log()).contains("WARN").contains("cannot tell which checkpoints " + cut + " needs");
        writeAll(store, 5, 2);
        assertThat(store.ids("job")).containsExactly(4L, 5L);
    }
}
