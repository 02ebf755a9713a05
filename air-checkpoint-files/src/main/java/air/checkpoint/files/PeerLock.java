package air.checkpoint.files;

import air.runtime.CheckpointMismatchException;
import air.runtime.api.CheckpointStore;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One peer's lock on a job's checkpoint directory, {@code DIR/<job>/peer-<r>-of-<K>.lock}: a
 * file held with an operating-system lock ({@link FileChannel#tryLock}) by the live run, which
 * also writes into it who it is (run, process, host, start). A second run of the same job and peer
 * finds it held and is refused, naming the holder; when the holder's process dies (even by
 * {@code kill -9}) the system releases the lock, so a stale file never blocks the next run. The
 * file stays after release (deleting it would let two runs lock two different files of one name).
 * A run that passed its start checks also leaves {@code peer-<r>-of-<K>.started}, which tells later
 * runs that this job ran here before (a refused run leaves none). Within one JVM a table of held locks
 * answers first, since closing any channel of a file releases every lock the process has on it.
 */
final class PeerLock implements CheckpointStore.Claim {

    /** Locks held in this JVM, by absolute path, with their holder's description. */
    private static final Map<Path, String> HELD = new ConcurrentHashMap<>();

    private final Path file;
    private final Path startedFile;
    private final FileChannel channel;
    private final FileLock lock;
    private final boolean earlierRun;
    private final String holder;
    private final AtomicBoolean open = new AtomicBoolean(true);

    private PeerLock(Path file, Path startedFile, String holder, FileChannel channel, FileLock lock, boolean earlierRun) {
        this.file = file;
        this.startedFile = startedFile;
        this.holder = holder;
        this.channel = channel;
        this.lock = lock;
        this.earlierRun = earlierRun;
    }

    static String fileName(int peer, int peers) {
        return "peer-" + peer + "-of-" + peers + ".lock";
    }

    /** Says that a run of this job and peer got past its start checks here: {@code peer-<r>-of-<K>.started}. */
    private static Path startedFile(Path dir, int peer, int peers) {
        return dir.resolve("peer-" + peer + "-of-" + peers + ".started");
    }

    /** Who a run is, as its lock file says: {@code run=… pid=… host=… peer=r/K started=…}. */
    static String holder(String run, int peer, int peers) {
        return "run=" + run + " pid=" + ProcessHandle.current().pid() + " host=" + hostName() + " peer=" + peer + "/" + peers
                + " started=" + Instant.now();
    }

    /**
     * Takes the lock of {@code peer} in {@code dir} (created if missing) for run {@code run}, or
     * refuses naming the run that holds it.
     */
    static PeerLock take(Path dir, String job, int peer, int peers, String run) throws IOException {
        OwnerOnly.createDirectories(dir);
        Path file = dir.resolve(fileName(peer, peers)).toAbsolutePath().normalize();
        String me = holder(run, peer, peers);
        String other = HELD.putIfAbsent(file, me);
        if (other != null) {
            throw inUse(job, dir, peer, other + " (in this JVM)");
        }
        boolean earlier = Files.exists(startedFile(dir, peer, peers));
        FileChannel channel = null;
        try {
            channel = OwnerOnly.open(file, Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE));
            FileLock lock = channel.tryLock();
            if (lock == null) {
                channel.close();
                channel = null;
                throw inUse(job, dir, peer, recorded(file));
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap((me + "\n").getBytes(StandardCharsets.UTF_8)), 0);
            channel.force(false);
            return new PeerLock(file, startedFile(dir, peer, peers), me, channel, lock, earlier);
        } catch (IOException | RuntimeException e) {
            HELD.remove(file, me);
            if (channel != null) {
                channel.close();
            }
            throw e;
        }
    }

    /** Whether any peer's lock in {@code dir} is held by a live run now; says by which, or null. */
    static String liveHolder(Path dir) throws IOException {
        try (var files = Files.newDirectoryStream(dir, "peer-*-of-*.lock")) {
            for (Path f : files) {
                Path file = f.toAbsolutePath().normalize();
                String probing = "a run discarding these checkpoints";
                String here = HELD.putIfAbsent(file, probing);
                if (here != null) {
                    return here + " (in this JVM)";
                }
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                    FileLock probe = ch.tryLock();
                    if (probe == null) {
                        return recorded(file);
                    }
                    probe.release();
                } catch (NoSuchFileException e) {
                    // removed meanwhile
                } finally {
                    HELD.remove(file, probing);
                }
            }
        } catch (NoSuchFileException e) {
            return null;
        }
        return null;
    }

    private static CheckpointMismatchException inUse(String job, Path dir, int peer, String holder) {
        return new CheckpointMismatchException("the checkpoints of job " + job + " in " + dir + " are in use by another run of it (peer "
                + peer + "): " + holder + ". Two runs must not share them: wait for that run to end or stop it, or use another directory");
    }

    private static String recorded(Path file) {
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8).strip();
            return text.isEmpty() ? "a run that has not written its name into " + file + " yet" : text;
        } catch (IOException e) {
            return "a run whose lock file " + file + " cannot be read (" + e + ")";
        }
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "unknown-host";
        }
    }

    @Override
    public boolean earlierRun() {
        return earlierRun;
    }

    @Override
    public void started() throws IOException {
        if (!Files.exists(startedFile)) {
            try (FileChannel ch = OwnerOnly.open(startedFile, Set.of(StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE))) {
                ch.write(ByteBuffer.wrap((holder + "\n").getBytes(StandardCharsets.UTF_8)));
            }
        }
    }

    /** Releases the lock; the file stays. Once is enough, more do nothing. */
    @Override
    public void close() {
        if (!open.compareAndSet(true, false)) {
            return;
        }
        try {
            lock.release();
            channel.close();
        } catch (IOException e) {
            // the process still ending releases it
        } finally {
            HELD.remove(file, holder);
        }
    }

    @Override
    public String toString() {
        return "lock " + file;
    }
}
