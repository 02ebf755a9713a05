package air.replication;

import air.runtime.api.CheckpointStore;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints as files: {@code DIR/<job>/ckpt-<id>/peer-<r>-of-<K>.ckpt}, one per peer, each
 * written to a temporary file, forced to disk and renamed into place, so a file is either whole or
 * absent. Every file ends with a CRC32C of its contents and names its job, checkpoint, peer and
 * peer count; a checkpoint is used only when the files of all K peers are there and pass those
 * checks, otherwise the previous one is taken and a WARN line says why. After each write, a peer
 * deletes the checkpoints older than the newest {@code retain} complete ones. On a
 * shared file system the peers of a cluster can use one directory.
 */
public final class FileCheckpointStore implements CheckpointStore {

    private static final Logger LOG = LoggerFactory.getLogger(FileCheckpointStore.class);
    private static final byte[] MAGIC = "AIRCKPT1".getBytes(StandardCharsets.US_ASCII);
    private static final String PREFIX = "ckpt-";
    /** Larger than any real checkpoint file: a length beyond it means the file is damaged. */
    private static final int MAX_PART_BYTES = Integer.MAX_VALUE - 64;

    private final Path root;
    private final int retain;

    /** A store under {@code root} that keeps the newest {@code retain} (at least 2) complete checkpoints. */
    public FileCheckpointStore(Path root, int retain) {
        this.root = Objects.requireNonNull(root, "root is null");
        if (retain < 2) {
            throw new IllegalArgumentException("retain must be >= 2 (a damaged newest checkpoint needs one to fall back to), was " + retain);
        }
        this.retain = retain;
    }

    public FileCheckpointStore(Path root) {
        this(root, 3);
    }

    @Override
    public void write(String job, long id, int peer, int peers, Map<String, byte[]> parts) throws IOException {
        Path dir = root.resolve(job).resolve(dirName(id));
        Files.createDirectories(dir);
        Path file = dir.resolve(fileName(peer, peers));
        Path tmp = dir.resolve(fileName(peer, peers) + ".tmp");
        ByteBuffer encoded = encode(job, id, peer, peers, parts);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            while (encoded.hasRemaining()) {
                ch.write(encoded);
            }
            ch.force(true);
        }
        try {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("the file system of " + dir + " cannot rename atomically; checkpoints need it", e);
        }
        forceDirectory(dir);
        prune(job, peer, peers);
    }

    @Override
    public List<String> jobs() throws IOException {
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> dirs = Files.list(root)) {
            return dirs.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** Removes every checkpoint of {@code job} and its folder; what another peer removes meanwhile is skipped. */
    @Override
    public void discard(String job) throws IOException {
        Path dir = root.resolve(job);
        if (!Files.isDirectory(dir)) {
            return;
        }
        for (long id : ids(job)) {
            deleteAll(job, id);
        }
        try (DirectoryStream<Path> left = Files.newDirectoryStream(dir)) {
            for (Path p : left) {
                if (Files.isRegularFile(p)) {
                    Files.deleteIfExists(p); // a temporary file a run left behind
                }
            }
        } catch (NoSuchFileException e) {
            return;
        }
        try {
            Files.deleteIfExists(dir);
        } catch (DirectoryNotEmptyException e) {
            // another peer is writing into it or removing it too
        }
    }

    @Override
    public Optional<Restored> newestComplete(String job, int peer, int peers) throws IOException {
        List<Long> ids = new ArrayList<>(ids(job));
        Collections.reverse(ids);
        for (long id : ids) {
            Path dir = root.resolve(job).resolve(dirName(id));
            Map<String, byte[]> mine = null;
            String problem = null;
            for (int r = 0; r < peers && problem == null; r++) {
                Path file = dir.resolve(fileName(r, peers));
                try {
                    Map<String, byte[]> parts = decode(Files.readAllBytes(file), job, id, r, peers);
                    if (r == peer) {
                        mine = parts;
                    }
                } catch (NoSuchFileException e) {
                    problem = "peer " + r + " never completed it (" + file.getFileName() + " is missing)";
                } catch (DamagedFile e) {
                    problem = file.getFileName() + ": " + e.getMessage();
                }
            }
            if (problem == null) {
                return Optional.of(new Restored(id, mine));
            }
            LOG.warn("checkpoint {} of job {} in {} is unusable: {}; trying the previous one", id, job, root, problem);
        }
        return Optional.empty();
    }

    @Override
    public void discardNewerThan(String job, long id, int peer) throws IOException {
        for (long newer : ids(job)) {
            if (newer > id) {
                deleteOwn(job, newer, peer);
            }
        }
    }

    @Override
    public String describe() {
        return root.toString();
    }

    /** Checkpoint ids of {@code job} present on disk (complete or not), ascending. */
    List<Long> ids(String job) throws IOException {
        Path dir = root.resolve(job);
        List<Long> ids = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return ids;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, PREFIX + "*")) {
            for (Path p : entries) {
                try {
                    ids.add(Long.parseLong(p.getFileName().toString().substring(PREFIX.length())));
                } catch (NumberFormatException e) {
                    // not ours
                }
            }
        } catch (NoSuchFileException e) {
            return ids; // another peer removed the job's checkpoints just now (a fresh start)
        }
        Collections.sort(ids);
        return ids;
    }

    /** Deletes this peer's files of checkpoints older than the newest {@code retain} complete ones. */
    private void prune(String job, int peer, int peers) throws IOException {
        List<Long> ids = ids(job);
        List<Long> complete = new ArrayList<>();
        for (long id : ids) {
            boolean all = true;
            for (int r = 0; r < peers && all; r++) {
                all = Files.exists(root.resolve(job).resolve(dirName(id)).resolve(fileName(r, peers)));
            }
            if (all) {
                complete.add(id);
            }
        }
        if (complete.size() < retain) {
            return;
        }
        long oldestKept = complete.get(complete.size() - retain);
        for (long id : ids) {
            if (id < oldestKept) {
                deleteAll(job, id);
            }
        }
    }

    /** Removes a checkpoint older than every one kept: no peer writes it again, no restart needs it. */
    private void deleteAll(String job, long id) throws IOException {
        Path dir = root.resolve(job).resolve(dirName(id));
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path p : entries) {
                Files.deleteIfExists(p);
            }
        } catch (NoSuchFileException e) {
            return;
        }
        try {
            Files.deleteIfExists(dir);
        } catch (DirectoryNotEmptyException e) {
            // another peer is removing it too
        }
    }

    private void deleteOwn(String job, long id, int peer) throws IOException {
        Path dir = root.resolve(job).resolve(dirName(id));
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir, "peer-" + peer + "-of-*")) {
            for (Path p : entries) {
                Files.deleteIfExists(p);
            }
        } catch (NoSuchFileException e) {
            return;
        }
        try (DirectoryStream<Path> left = Files.newDirectoryStream(dir)) {
            if (!left.iterator().hasNext()) {
                Files.deleteIfExists(dir);
            }
        } catch (NoSuchFileException | DirectoryNotEmptyException e) {
            // another peer removed it or just wrote into it
        }
    }

    private static void forceDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // some file systems cannot sync a directory; the rename is still atomic
        }
    }

    static String dirName(long id) {
        return PREFIX + String.format("%019d", id);
    }

    static String fileName(int peer, int peers) {
        return "peer-" + peer + "-of-" + peers + ".ckpt";
    }

    static ByteBuffer encode(String job, long id, int peer, int peers, Map<String, byte[]> parts) {
        byte[] jobBytes = job.getBytes(StandardCharsets.UTF_8);
        long size = MAGIC.length + 4 + jobBytes.length + 8 + 4 + 4 + 4 + 8;
        Map<String, byte[]> sorted = new TreeMap<>(parts);
        for (Map.Entry<String, byte[]> e : sorted.entrySet()) {
            size += 4 + e.getKey().getBytes(StandardCharsets.UTF_8).length + 4 + e.getValue().length;
        }
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("checkpoint " + id + " of peer " + peer + " is " + size + " bytes; at most 2 GiB per peer");
        }
        ByteBuffer b = ByteBuffer.allocate((int) size);
        b.put(MAGIC).putInt(jobBytes.length).put(jobBytes).putLong(id).putInt(peer).putInt(peers).putInt(sorted.size());
        for (Map.Entry<String, byte[]> e : sorted.entrySet()) {
            byte[] name = e.getKey().getBytes(StandardCharsets.UTF_8);
            b.putInt(name.length).put(name).putInt(e.getValue().length).put(e.getValue());
        }
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.putLong(crc.getValue());
        return b.flip();
    }

    /** Thrown for a file whose checks fail: damaged, partly written, or not the checkpoint asked for. */
    static final class DamagedFile extends Exception {
        DamagedFile(String problem) {
            super(problem);
        }
    }

    static Map<String, byte[]> decode(byte[] bytes, String job, long id, int peer, int peers) throws DamagedFile {
        if (bytes.length < MAGIC.length + 8) {
            throw new DamagedFile("only " + bytes.length + " bytes (partly written?)");
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 8);
        ByteBuffer b = ByteBuffer.wrap(bytes);
        if (b.getLong(bytes.length - 8) != crc.getValue()) {
            throw new DamagedFile("checksum mismatch (damaged or partly written)");
        }
        b.limit(bytes.length - 8);
        try {
            byte[] magic = new byte[MAGIC.length];
            b.get(magic);
            if (!Arrays.equals(magic, MAGIC)) {
                throw new DamagedFile("not an AIR checkpoint file");
            }
            String fileJob = new String(bytes(b, 4096), StandardCharsets.UTF_8);
            long fileId = b.getLong();
            int filePeer = b.getInt();
            int filePeers = b.getInt();
            if (!fileJob.equals(job) || fileId != id || filePeer != peer || filePeers != peers) {
                throw new DamagedFile("holds job " + fileJob + " checkpoint " + fileId + " of peer " + filePeer + "/" + filePeers
                        + ", expected " + job + " checkpoint " + id + " of peer " + peer + "/" + peers);
            }
            int count = b.getInt();
            if (count < 0 || count > b.remaining() / 8) {
                throw new DamagedFile("claims " + count + " parts");
            }
            Map<String, byte[]> parts = new LinkedHashMap<>();
            for (int i = 0; i < count; i++) {
                String name = new String(bytes(b, 4096), StandardCharsets.UTF_8);
                parts.put(name, bytes(b, MAX_PART_BYTES));
            }
            if (b.hasRemaining()) {
                throw new DamagedFile(b.remaining() + " stray bytes after the last part");
            }
            return parts;
        } catch (BufferUnderflowException e) {
            throw new DamagedFile("ends in the middle of a part");
        }
    }

    private static byte[] bytes(ByteBuffer b, int max) throws DamagedFile {
        int n = b.getInt();
        if (n < 0 || n > max || n > b.remaining()) {
            throw new DamagedFile("a length of " + n + " bytes with " + b.remaining() + " left");
        }
        byte[] out = new byte[n];
        b.get(out);
        return out;
    }
}
