package air.checkpoint.files;

import air.runtime.CheckpointMismatchException;
import air.runtime.api.CheckpointStore;
import air.runtime.impl.checkpoint.CheckpointCoordinator;
import java.io.IOException;
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
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints as files: {@code DIR/<job>/ckpt-<id>/peer-<r>-of-<K>.ckpt}, one per peer, each
 * written to a temporary file named after the run ({@code peer-<r>-of-<K>.ckpt.<run>.tmp}), forced
 * to disk and renamed into place, so a file is either whole or absent; a write that fails (a full
 * disk) removes its temporary file and throws. Every file begins with its format version and ends
 * with a CRC32C ({@link CheckpointFile}) and names its job, checkpoint, peer and peer count. Files
 * and the directories the store makes are its user's alone ({@link OwnerOnly}).
 *
 * <p><b>Signed files.</b> When the world has a secret ({@code AIR_SECRET}, as its meshes prove it),
 * every file also ends with a MAC under a key derived from it ({@link CheckpointKey}), and a restore
 * takes only files whose MAC matches: a file without one, or with a wrong one (not written under
 * this world's secret, or altered), is unusable as a damaged file is, below. Without a secret, or
 * with one a launcher made for a single run, files carry the CRC only.
 *
 * <p><b>Chains.</b> The store {@linkplain #keepsChains keeps chains}: a file may hold only the
 * changes since the checkpoint before, and then names its base, the whole checkpoint its chain
 * starts from (format 4). Restoring such a checkpoint needs every file of the chain, so a
 * checkpoint is used only when, for every one of the K peers, its file and the files of that
 * peer's chain (every checkpoint from the base recorded in its file) are there, readable, pass
 * those checks and record that same base; otherwise the previous one is taken and a WARN line
 * names the file and the problem. Every peer checks the files of all peers, not only its own, so
 * that all peers choose the same checkpoint even when their chains start from different bases (a
 * peer whose write failed starts a new chain on its own). A file of an unknown format is refused.
 *
 * <p>A run claims each peer's share with a lock ({@link PeerLock}), so a second run of the same
 * job and peer is refused while the first lives. After each write, a peer deletes the checkpoints
 * older than the newest {@code retain} complete ones and older than the base of every file of
 * those, read from the files' headers: a kept checkpoint is of no use without its chain. When such
 * a header cannot be read, it keeps everything for now rather than guess. On a shared file system
 * the peers of a cluster can use one directory.
 */
public final class FileCheckpointStore implements CheckpointStore {

    private static final Logger LOG = LoggerFactory.getLogger(FileCheckpointStore.class);
    private static final String PREFIX = "ckpt-";
    private static final String TMP = ".tmp";

    private final Path root;
    private final int retain;
    /** What signs the files written and must have signed the files restored. */
    private final CheckpointKey macKey;
    /** This store's run: in its temporary files' names, its files and its locks, so that no two runs share a name. */
    private final String run = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());

    /**
     * A store under {@code root} that keeps the newest {@code retain} (at least 2) complete
     * checkpoints, signing them under the secret of the world this process belongs to, if any.
     */
    public FileCheckpointStore(Path root, int retain) {
        this(root, retain, CheckpointKey.ofThisWorld());
    }

    /** A store signing under {@code key} ({@link CheckpointKey#NONE}: a CRC only). */
    FileCheckpointStore(Path root, int retain, CheckpointKey key) {
        this.root = Objects.requireNonNull(root, "root is null");
        this.macKey = Objects.requireNonNull(key, "key is null");
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

    /** Whole checkpoints and the checkpoints of changes that follow them: see the class comment. */
    @Override
    public boolean keepsChains() {
        return true;
    }

    /** Writes a whole checkpoint: its own base. */
    @Override
    public void write(String job, long id, int peer, int peers, Map<String, byte[]> parts) throws IOException {
        write(job, id, id, peer, peers, parts);
    }

    /**
     * Writes {@code peer}'s file of checkpoint {@code id} with {@code base} (at most {@code id}) in
     * its header, then prunes; the store does not check here that the chain's files exist, a
     * restore does ({@link #newestComplete}).
     */
    @Override
    public void write(String job, long id, long base, int peer, int peers, Map<String, byte[]> parts) throws IOException {
        if (base > id) {
            throw new IllegalArgumentException("checkpoint " + id + " of job " + job + " cannot start a chain from a newer one, " + base);
        }
        Path dir = root.resolve(job).resolve(dirName(id));
        OwnerOnly.createDirectories(dir);
        Path file = dir.resolve(fileName(peer, peers));
        Path tmp = dir.resolve(fileName(peer, peers) + "." + run + TMP);
        try {
            try (FileChannel ch = OwnerOnly.open(tmp, Set.of(StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE))) {
                CheckpointFile.write(ch, job, id, base, peer, peers, run, parts, macKey);
                ch.force(true);
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | RuntimeException e) {
            removeFailed(tmp, dir);
            if (e instanceof AtomicMoveNotSupportedException) {
                throw new IOException("the file system of " + dir + " cannot rename atomically; checkpoints need it", e);
            }
            if (e instanceof IOException io) {
                throw new IOException("cannot write " + file + " (" + parts.values().stream().mapToLong(p -> p.length).sum() + " bytes of parts): "
                        + io, io);
            }
            throw e;
        }
        forceDirectory(dir);
        prune(job, peers);
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

    /**
     * The newest checkpoint whose chain is whole for every peer (see the class comment), with this
     * peer's parts of its chain. Reads each file at most once, keeping only this peer's parts.
     */
    @Override
    public Optional<Restored> newestComplete(String job, int peer, int peers) throws IOException {
        List<Long> ids = new ArrayList<>(ids(job));
        Collections.reverse(ids);
        Map<FileKey, Checked> read = new HashMap<>();
        for (long id : ids) {
            String problem = null;
            for (int r = 0; r < peers && problem == null; r++) {
                problem = chainProblem(job, id, r, peer, peers, read);
            }
            if (problem == null) {
                long base = read.get(new FileKey(id, peer)).base();
                List<Map<String, byte[]>> chain = new ArrayList<>();
                for (long i = base; i <= id; i++) {
                    chain.add(read.get(new FileKey(i, peer)).parts());
                }
                return Optional.of(new Restored(id, chain));
            }
            LOG.warn("checkpoint {} of job {} in {} is unusable: {}; trying the previous one", id, job, root, problem);
        }
        return Optional.empty();
    }

    /** A file of one checkpoint and peer. */
    private record FileKey(long id, int peer) { }

    /**
     * What reading a file found: its base and, for the peer that restores, its parts; or, when it
     * cannot be used, the {@code problem}, naming the file ({@code missing} when it is not there).
     */
    private record Checked(long base, Map<String, byte[]> parts, String problem, boolean missing) { }

    /**
     * Why peer {@code r}'s checkpoint {@code id} cannot be restored: its file, or one of its chain
     * (every checkpoint from the base that file records), is missing, damaged, or records another
     * base; {@code null} when it can.
     */
    private String chainProblem(String job, long id, int r, int peer, int peers, Map<FileKey, Checked> read) throws IOException {
        Checked last = check(job, id, r, peer, peers, read);
        if (last.problem() != null) {
            return last.missing() ? "peer " + r + " never completed it (" + last.problem() + ")" : last.problem();
        }
        for (long i = id - 1; i >= last.base(); i--) {
            Checked c = check(job, i, r, peer, peers, read);
            String problem = c.problem() != null ? c.problem()
                    : c.base() != last.base() ? file(job, i, r, peers) + " records base " + c.base() : null;
            if (problem != null) {
                return "peer " + r + "'s chain from checkpoint " + last.base() + " is broken: " + problem;
            }
        }
        return null;
    }

    /** Reads and checks peer {@code r}'s file of checkpoint {@code id}, once per call of {@link #newestComplete}. */
    private Checked check(String job, long id, int r, int peer, int peers, Map<FileKey, Checked> read) throws IOException {
        FileKey key = new FileKey(id, r);
        Checked known = read.get(key);
        if (known != null) {
            return known;
        }
        Path file = file(job, id, r, peers);
        Checked checked;
        try {
            if (r == peer) {
                CheckpointFile.Contents c = CheckpointFile.decode(Files.readAllBytes(file), job, id, r, peers, macKey);
                checked = new Checked(c.base(), c.parts(), null, false);
            } else { // only checked: a restore holds its own parts, never the whole world's
                checked = new Checked(CheckpointFile.verify(file, job, id, r, peers, macKey).base(), null, null, false);
            }
        } catch (NoSuchFileException e) {
            checked = new Checked(-1, null, file + " is missing", true);
        } catch (CheckpointFile.DamagedFile e) {
            checked = new Checked(-1, null, file + ": " + e.getMessage(), false);
        } catch (IOException | RuntimeException e) {
            checked = new Checked(-1, null, file + " cannot be read: " + e, false);
        } catch (CheckpointFile.UnknownFormat e) {
            throw new CheckpointMismatchException("job " + job + ": " + file + " is in " + e.getMessage()
                    + ": it was written by " + (e.older() ? "an older" : "a newer") + " AIR. Resume it with that AIR, or move "
                    + root.resolve(job) + " away (or use another directory) to start afresh");
        }
        read.put(key, checked);
        return checked;
    }

    @Override
    public long newestWrittenByAll(String job, int peers) throws IOException {
        List<Long> all = ids(job);
        for (int i = all.size() - 1; i >= 0; i--) {
            if (writtenByAll(job, all.get(i), peers)) {
                return all.get(i);
            }
        }
        return 0;
    }

    @Override
    public String liveRun(String job) throws IOException {
        Path dir = root.resolve(job);
        return Files.isDirectory(dir) ? PeerLock.liveHolder(dir) : null;
    }

    @Override
    public long newestBegun(String job) throws IOException {
        long newest = 0;
        for (long id : ids(job)) {
            if (id < CheckpointCoordinator.FINAL) {
                newest = Math.max(newest, id);
            }
        }
        return newest;
    }

    /** Every peer's file of checkpoint {@code id} is there (a file is renamed into place whole, so being there is being written). */
    @Override
    public boolean writtenByAll(String job, long id, int peers) {
        for (int r = 0; r < peers; r++) {
            if (!Files.exists(file(job, id, r, peers))) {
                return false;
            }
        }
        return true;
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

    /**
     * Deletes the checkpoints older than the newest {@code retain} complete ones and than the base
     * of any peer's file of those (their chains must stay whole). Reads only those files' headers;
     * when one cannot be read (damaged, or removed meanwhile by another peer's prune), its base is
     * unknown and nothing is deleted this time: a later prune, once it is no longer among the kept
     * ones, deletes what this one left.
     */
    private void prune(String job, int peers) throws IOException {
        List<Long> ids = ids(job);
        List<Long> complete = new ArrayList<>();
        for (long id : ids) {
            boolean all = true;
            for (int r = 0; r < peers && all; r++) {
                all = Files.exists(file(job, id, r, peers));
            }
            if (all) {
                complete.add(id);
            }
        }
        if (complete.size() < retain) {
            return;
        }
        List<Long> kept = complete.subList(complete.size() - retain, complete.size());
        long oldestKept = kept.get(0);
        for (long id : kept) {
            for (int r = 0; r < peers; r++) {
                Path file = file(job, id, r, peers);
                try {
                    oldestKept = Math.min(oldestKept, CheckpointFile.header(file, job, id, r, peers).base());
                } catch (NoSuchFileException e) {
                    return; // another peer pruned it, seeing newer complete checkpoints: its prune deleted what this one would
                } catch (CheckpointFile.DamagedFile | CheckpointFile.UnknownFormat e) {
                    keepAll(job, file, e.getMessage());
                    return;
                } catch (IOException | RuntimeException e) {
                    keepAll(job, file, e.toString());
                    return;
                }
            }
        }
        for (long id : ids) {
            if (id < oldestKept) {
                deleteAll(job, id);
            }
        }
    }

    private void keepAll(String job, Path file, String problem) {
        LOG.warn("job {}: cannot tell which checkpoints {} needs ({}); keeping every checkpoint until it is no longer among the newest {} "
                + "complete ones", job, file, problem, retain);
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

    private Path file(String job, long id, int peer, int peers) {
        return root.resolve(job).resolve(dirName(id)).resolve(fileName(peer, peers));
    }

    static String dirName(long id) {
        return PREFIX + String.format("%019d", id);
    }

    static String fileName(int peer, int peers) {
        return "peer-" + peer + "-of-" + peers + ".ckpt";
    }
}
