package air.replication;

import air.runtime.CheckpointMismatchException;
import air.runtime.api.CheckpointStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints as files: {@code DIR/<job>/ckpt-<id>/peer-<r>-of-<K>.ckpt}, one per peer, each
 * written to a temporary file named after the run ({@code peer-<r>-of-<K>.ckpt.<run>.tmp}), forced
 * to disk and renamed into place, so a file is either whole or absent; a write that fails (a full
 * disk) removes its temporary file and throws. Every file begins with its format version and ends
 * with a CRC32C ({@link CheckpointFile}) and names its job, checkpoint, peer and peer count; a
 * checkpoint is used only when the files of all K peers are there, readable and pass those checks,
 * otherwise the previous one is taken and a WARN line names the file and the problem; a file of an
 * unknown format is refused. A run claims each peer's share with a lock ({@link PeerLock}), so a
 * second run of the same job and peer is refused while the first lives. After each write, a peer
 * deletes the checkpoints older than the newest {@code retain} complete ones. On a shared file
 * system the peers of a cluster can use one directory.
 */
public final class FileCheckpointStore implements CheckpointStore {

    private static final Logger LOG = LoggerFactory.getLogger(FileCheckpointStore.class);
    private static final String PREFIX = "ckpt-";
    private static final String TMP = ".tmp";

    private final Path root;
    private final int retain;
    /** This store's run: in its temporary files' names, its files and its locks, so that no two runs share a name. */
    private final String run = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());

    /** A store under {@code root} that keeps the newest {@code retain} (at least 2) complete checkpoints. */
    public FileCheckpointStore(Path root, int retain) {
        this.root = Objects.requireNonNull(root, "root is null");
        if (retain < 2) {
            throw new IllegalArgumentException("retain must be >= 2 (a damaged newest checkpoint needs one to fall back to), was " + retain);
        }
        this.retain = retain;
    }

    /** The run id this store writes under: unique per store, named in its files, temporary files and locks. */
    public String run() {
        return run;
    }

    public FileCheckpointStore(Path root) {
        this(root, 3);
    }

    @Override
    public void write(String job, long id, int peer, int peers, Map<String, byte[]> parts) throws IOException {
        Path dir = root.resolve(job).resolve(dirName(id));
        Files.createDirectories(dir);
        Path file = dir.resolve(fileName(peer, peers));
        Path tmp = dir.resolve(fileName(peer, peers) + "." + run + TMP);
        ByteBuffer encoded = CheckpointFile.encode(job, id, peer, peers, run, parts);
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE)) {
                while (encoded.hasRemaining()) {
                    ch.write(encoded);
                }
                ch.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | RuntimeException e) {
            removeFailed(tmp, dir);
            if (e instanceof AtomicMoveNotSupportedException) {
                throw new IOException("the file system of " + dir + " cannot rename atomically; checkpoints need it", e);
            }
            if (e instanceof IOException io) {
                throw new IOException("cannot write " + file + " (" + encoded.capacity() + " bytes): " + io, io);
            }
            throw e;
        }
        forceDirectory(dir);
        prune(job, peer, peers);
    }

    /** After a failed write: its temporary file goes, and the checkpoint's folder too when nothing else is in it. */
    private static void removeFailed(Path tmp, Path dir) {
        try {
            Files.deleteIfExists(tmp);
        } catch (IOException e) {
            LOG.warn("cannot remove the temporary file {} of a failed checkpoint write: {}", tmp, e.toString());
        }
        try {
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // other peers' parts are in it, or it is gone
        }
    }

    /**
     * Takes {@code peer}'s lock of {@code job} (refusing while another run holds it), then removes
     * the temporary files that earlier runs of this peer left behind (killed mid-write).
     */
    @Override
    public Claim claim(String job, int peer, int peers) throws IOException {
        PeerLock lock = PeerLock.take(root.resolve(job), job, peer, peers, run);
        try {
            for (long id : ids(job)) {
                Path dir = root.resolve(job).resolve(dirName(id));
                try (DirectoryStream<Path> stale = Files.newDirectoryStream(dir, fileName(peer, peers) + "*" + TMP)) {
                    for (Path p : stale) {
                        Files.deleteIfExists(p);
                        LOG.info("removed {}, left by an earlier run of job {} peer {} that ended mid-write", p, job, peer);
                    }
                } catch (NoSuchFileException e) {
                    // pruned meanwhile
                }
            }
            return lock;
        } catch (IOException | RuntimeException e) {
            lock.close();
            throw e;
        }
    }

    @Override
    public List<String> jobs() throws IOException {
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> dirs = Files.list(root)) {
            return dirs.filter(Files::isDirectory).map(p -> p.getFileName().toString()).filter(this::holdsCheckpoints).sorted().toList();
        }
    }

    /** Whether {@code job}'s folder holds checkpoints (complete or not), not only the locks of runs that wrote none. */
    private boolean holdsCheckpoints(String job) {
        try {
            return !ids(job).isEmpty();
        } catch (IOException e) {
            return true; // cannot tell: listed, so that a run refuses rather than overlooks it
        }
    }

    /**
     * Removes every checkpoint of {@code job}, its locks and its folder; what another peer removes
     * meanwhile is skipped. Refuses while a live run holds one of its locks.
     */
    @Override
    public void discard(String job) throws IOException {
        Path dir = root.resolve(job);
        if (!Files.isDirectory(dir)) {
            return;
        }
        String live = PeerLock.liveHolder(dir);
        if (live != null) {
            throw new CheckpointMismatchException("cannot discard the checkpoints of " + job + " in " + root + ": a run of it is live ("
                    + live + "); stop it first, or use another directory");
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
                    Map<String, byte[]> parts = CheckpointFile.decode(Files.readAllBytes(file), job, id, r, peers).parts();
                    if (r == peer) {
                        mine = parts;
                    }
                } catch (NoSuchFileException e) {
                    problem = "peer " + r + " never completed it (" + file + " is missing)";
                } catch (CheckpointFile.DamagedFile e) {
                    problem = file + ": " + e.getMessage();
                } catch (IOException | RuntimeException e) {
                    problem = file + " cannot be read: " + e;
                } catch (CheckpointFile.UnknownFormat e) {
                    throw new CheckpointMismatchException("job " + job + ": " + file + " is in " + e.getMessage()
                            + ": it was written by " + (e.older() ? "an older" : "a newer") + " AIR. Resume it with that AIR, or move "
                            + root.resolve(job) + " away (or use another directory) to start afresh");
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
}
