package air.checkpoint.files;

import static air.checkpoint.files.FileCheckpointStoreTest.file;
import static air.checkpoint.files.FileCheckpointStoreTest.logged;
import static air.checkpoint.files.FileCheckpointStoreTest.text;
import static air.checkpoint.files.FileCheckpointStoreTest.writeAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.channels.MeshAuth;
import air.runtime.api.CheckpointStore;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoint files under the world's secret (issue 29): signed files carry a MAC a local user who
 * can write the directory cannot make, a restore refuses a file whose MAC is missing or wrong as
 * it refuses a damaged one (the previous checkpoint is used, the WARN line names the file), and a
 * world without a secret reads and writes files as before.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CheckpointMacTest {

    private static final CheckpointKey A = CheckpointKey.of(MeshAuth.of("secret-a"));
    private static final CheckpointKey B = CheckpointKey.of(MeshAuth.of("secret-b"));
    private static final String REFUSED = "not written under this world's secret, or altered";

    /**
     * What someone who can write the directory can do without the key: change a byte of the last
     * part and recompute the CRC, leaving whatever follows the CRC (a signed file's MAC) as it was.
     */
    private static void alter(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        int seal = CheckpointFile.formatOf(bytes) == CheckpointFile.SIGNED ? 8 + CheckpointKey.MAC_BYTES : 8;
        int body = bytes.length - seal;
        bytes[body - 1] ^= 0x01;
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, body);
        ByteBuffer.wrap(bytes).putLong(body, crc.getValue());
        Files.write(file, bytes);
    }

    /** A downgrade: a signed file made into an unsigned one whose CRC passes (format 4, the MAC cut off, the CRC recomputed). */
    private static void stripMac(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        byte[] unsigned = Arrays.copyOf(bytes, bytes.length - CheckpointKey.MAC_BYTES);
        ByteBuffer.wrap(unsigned).putInt(8, CheckpointFile.FORMAT);
        CRC32C crc = new CRC32C();
        crc.update(unsigned, 0, unsigned.length - 8);
        ByteBuffer.wrap(unsigned).putLong(unsigned.length - 8, crc.getValue());
        Files.write(file, unsigned);
    }

    @Test
    void a_file_altered_on_disk_with_its_crc_recomputed_is_refused_under_a_secret_and_the_previous_checkpoint_used(@TempDir Path dir)
            throws IOException {
        FileCheckpointStore store = new FileCheckpointStore(dir, 3, A);
        writeAll(store, 1, 2);
        writeAll(store, 2, 2);
        Path others = file(dir, 2, 1, 2);
        alter(others);
        FileCheckpointStoreTest.Logged<Optional<CheckpointStore.Restored>> r = logged(() -> store.newestComplete("job", 0, 2));
        assertThat(r.value().orElseThrow().id()).as("peer 1's file is checked, not read, by peer 0").isEqualTo(1);
        assertThat(r.log()).contains("WARN").contains(others + ": " + REFUSED).contains("MAC does not match");
        assertThatThrownBy(() -> CheckpointFile.verify(others, "job", 2, 1, 2, A)).isInstanceOf(CheckpointFile.DamagedFile.class)
                .hasMessageContaining(REFUSED);

        writeAll(store, 3, 2);
        Path own = file(dir, 3, 0, 2);
        alter(own);
        r = logged(() -> store.newestComplete("job", 0, 2));
        assertThat(r.value().orElseThrow().id()).as("peer 0's own file, decoded whole").isEqualTo(1);
        assertThat(r.log()).contains(own + ": " + REFUSED);
        assertThat(text(r.value(), "v1/0")).isEqualTo("final 1@0");
    }

    @Test
    void a_file_written_under_one_secret_is_refused_under_another(@TempDir Path dir) throws IOException {
        FileCheckpointStore underA = new FileCheckpointStore(dir, 3, A);
        writeAll(underA, 1, 2);
        writeAll(underA, 2, 2);
        FileCheckpointStore underB = new FileCheckpointStore(dir, 3, B);
        FileCheckpointStoreTest.Logged<Optional<CheckpointStore.Restored>> r = logged(() -> underB.newestComplete("job", 1, 2));
        assertThat(r.value()).as("every file refused, as damaged ones are").isEmpty();
        assertThat(r.log()).contains(file(dir, 2, 0, 2) + ": " + REFUSED).contains(file(dir, 1, 0, 2) + ": " + REFUSED);
        assertThatThrownBy(() -> CheckpointFile.decode(Files.readAllBytes(file(dir, 2, 1, 2)), "job", 2, 1, 2, B))
                .isInstanceOf(CheckpointFile.DamagedFile.class).hasMessageContaining(REFUSED);
        assertThat(text(underA.newestComplete("job", 1, 2), "v0/0")).as("the world that wrote them restores them").isEqualTo("src 2@1");
    }

    @Test
    void a_file_without_a_mac_is_refused_by_a_world_with_a_secret_naming_the_fix(@TempDir Path dir) throws Exception {
        FileCheckpointStore unsigned = new FileCheckpointStore(dir, 3, CheckpointKey.NONE);
        writeAll(unsigned, 1, 2);
        FileCheckpointStore signed = new FileCheckpointStore(dir, 3, A);
        FileCheckpointStoreTest.Logged<Optional<CheckpointStore.Restored>> r = logged(() -> signed.newestComplete("job", 0, 2));
        assertThat(r.value()).isEmpty();
        assertThat(r.log()).contains(file(dir, 1, 0, 2) + ": " + REFUSED).contains("carries no MAC")
                .contains("with neither AIR_SECRET nor AIR_SECRET_FILE set").contains("start afresh under this secret");
        assertThatThrownBy(() -> CheckpointFile.verify(file(dir, 1, 1, 2), "job", 1, 1, 2, A)).isInstanceOf(CheckpointFile.DamagedFile.class)
                .hasMessageContaining(REFUSED).hasMessageContaining("carries no MAC");

        writeAll(signed, 2, 2);
        writeAll(signed, 3, 2);
        stripMac(file(dir, 3, 1, 2)); // a downgrade: the signed file made into an unsigned one whose CRC passes
        assertThat(CheckpointFile.verify(file(dir, 3, 1, 2), "job", 3, 1, 2, CheckpointKey.NONE).format()).isEqualTo(CheckpointFile.FORMAT);
        r = logged(() -> signed.newestComplete("job", 0, 2));
        assertThat(r.value().orElseThrow().id()).isEqualTo(2);
        assertThat(r.log()).contains(file(dir, 3, 1, 2) + ": " + REFUSED).contains("carries no MAC");
    }

    @Test
    void without_a_secret_files_carry_a_crc_only_and_restore_as_before(@TempDir Path dir) throws IOException {
        FileCheckpointStore store = new FileCheckpointStore(dir, 3, CheckpointKey.NONE);
        writeAll(store, 1, 2);
        writeAll(store, 2, 2);
        byte[] bytes = Files.readAllBytes(file(dir, 2, 0, 2));
        assertThat(CheckpointFile.formatOf(bytes)).isEqualTo(CheckpointFile.FORMAT).isEqualTo(4);
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 8);
        assertThat(ByteBuffer.wrap(bytes).getLong(bytes.length - 8)).as("the file ends with its CRC, as before").isEqualTo(crc.getValue());
        assertThat(text(store.newestComplete("job", 1, 2), "v0/0")).isEqualTo("src 2@1");
        alter(file(dir, 2, 1, 2));
        assertThat(store.newestComplete("job", 0, 2).orElseThrow().id()).as("a CRC recomputed passes: only a MAC tells").isEqualTo(2);

        FileCheckpointStore signed = new FileCheckpointStore(dir.resolve("signed"), 3, A);
        writeAll(signed, 1, 2);
        FileCheckpointStore reader = new FileCheckpointStore(dir.resolve("signed"), 3, CheckpointKey.NONE);
        assertThat(text(reader.newestComplete("job", 0, 2), "v0/0")).as("signed files read without a key: their CRC is checked")
                .isEqualTo("src 1@0");
    }

    @Test
    void the_key_comes_from_the_worlds_secret_unless_a_launcher_made_it_for_one_run(@TempDir Path dir) throws IOException {
        assertThat(CheckpointKey.fromEnvironment(Map.of()).signs()).isFalse();
        assertThat(CheckpointKey.fromEnvironment(Map.of(MeshAuth.SECRET, "s")).signs()).isTrue();
        assertThat(CheckpointKey.fromEnvironment(Map.of(MeshAuth.SECRET, "s", MeshAuth.SECRET_PER_RUN, "1")).signs())
                .as("a secret made for this run alone: the next run could not check files signed under it").isFalse();
        Path secretFile = dir.resolve("secret");
        Files.writeString(secretFile, "secret-a\n");
        CheckpointKey fromFile = CheckpointKey.fromEnvironment(Map.of(MeshAuth.SECRET_FILE, secretFile.toString()));
        FileCheckpointStore underA = new FileCheckpointStore(dir.resolve("ck"), 3, A);
        writeAll(underA, 1, 1);
        assertThat(text(new FileCheckpointStore(dir.resolve("ck"), 3, fromFile).newestComplete("job", 0, 1), "v0/0"))
                .as("the same secret, from AIR_SECRET_FILE").isEqualTo("src 1@0");
    }

    /** The MAC is HMAC-SHA256 under HMAC-SHA256(secret, "air checkpoint file v1"), recomputed here, never under the mesh's own key. */
    @Test
    void the_mac_is_keyed_by_a_key_derived_for_checkpoint_files_and_covers_every_byte_before_it(@TempDir Path dir) throws Exception {
        FileCheckpointStore store = new FileCheckpointStore(dir, 3, A);
        writeAll(store, 1, 1);
        byte[] bytes = Files.readAllBytes(file(dir, 1, 0, 1));
        assertThat(CheckpointFile.formatOf(bytes)).isEqualTo(CheckpointFile.SIGNED).isEqualTo(5);
        int macAt = bytes.length - CheckpointKey.MAC_BYTES;
        byte[] derived = hmac("secret-a".getBytes(StandardCharsets.UTF_8), "air checkpoint file v1".getBytes(StandardCharsets.UTF_8));
        assertThat(Arrays.copyOfRange(bytes, macAt, bytes.length)).isEqualTo(hmac(derived, Arrays.copyOf(bytes, macAt)))
                .isNotEqualTo(hmac("secret-a".getBytes(StandardCharsets.UTF_8), Arrays.copyOf(bytes, macAt)));
    }

    private static byte[] hmac(byte[] key, byte[] data) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(data);
    }

    /**
     * Signing keeps the write streaming and the restore bounded: a part of megabytes goes out in
     * slices, and a restore checks the MACs of the others' large files through its small buffer.
     */
    @Test
    void signed_files_are_written_in_slices_and_checked_in_bounded_memory(@TempDir Path dir) throws IOException {
        byte[] big = new byte[32 << 20];
        new Random(7).nextBytes(big);
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        int[] largest = {0};
        CheckpointFile.write(new SlicesSeen(Channels.newChannel(sink), largest), "job", 1, 1, 1, 2, "run-1", Map.of("a", big), A);
        assertThat(largest[0]).isLessThanOrEqualTo(CheckpointFile.SLICE_BYTES);
        assertThatThrownBy(() -> CheckpointFile.decode(sink.toByteArray(), "job", 1, 1, 2, B)).hasMessageContaining(REFUSED);

        assertThat(FileCheckpointStoreTest.allocatedToRestoreBesideLargeFiles(new FileCheckpointStore(dir, 3, A), big))
                .as("bytes allocated to restore peer 0, beside 3 x 32 MiB signed files of the others").isLessThan(8L << 20);
    }

    /** A channel that records the largest write it is given. */
    private record SlicesSeen(WritableByteChannel out, int[] largest) implements WritableByteChannel {
        @Override
        public int write(ByteBuffer src) throws IOException {
            largest[0] = Math.max(largest[0], src.remaining());
            return out.write(src);
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }
}
