package air.runtime.sink;

import air.runtime.api.OwnerToken;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.locks.LockSupport;

/**
 * The fencing token of one part file, in a hidden directory beside the parts
 * ({@code DIR/.owners/part-N}, so that it goes wherever the output goes and readers of
 * {@code part-*} see nothing else): 16 bytes, the owner's world and view. Claiming and every write of the part happen under an exclusive lock of
 * this file, so once a newer owner claimed the part no write of an older one can land after it.
 */
final class OwnerFile {

    private final Path file;
    private final Path part;

    OwnerFile(Path part) {
        this.part = part;
        this.file = directoryOf(part.getParent()).resolve(part.getFileName());
    }

    /** Where the tokens of the parts in {@code outputDir} live. */
    static Path directoryOf(Path outputDir) {
        return outputDir.resolve(".owners");
    }

    /** Records {@code owner} as the part's owner; refused when a newer owner of the same world already claimed it. */
    void claim(OwnerToken owner) {
        locked(owner, true, () -> { });
    }

    /** Runs {@code write} while {@code owner} still owns the part; throws, naming both owners, once another claimed it. */
    void whileOwner(OwnerToken owner, Runnable write) {
        locked(owner, false, write);
    }

    @SuppressWarnings("try") // the lock is held for the block, never named in it
    private void locked(OwnerToken owner, boolean claiming, Runnable action) {
        try {
            Files.createDirectories(file.getParent());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + file.getParent() + " for the owner of " + part + ": " + e.getMessage(), e);
        }
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
             FileLock lock = lockWithin(c, LOCK_TIMEOUT_MS)) {
            OwnerToken stored = read(c);
            if (claiming) {
                if (stored != null && stored.newerThan(owner)) {
                    throw fenced(stored, owner);
                }
                write(c, owner);
            } else if (!owner.equals(stored)) {
                throw fenced(stored, owner);
            }
            action.run();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot check the owner of " + part + " in " + file + ": " + e.getMessage(), e);
        }
    }

    /** How long a writer waits for the owner file's lock: a writer stopped while holding it must not stall a takeover. */
    private static final long LOCK_TIMEOUT_MS = 10_000;

    private FileLock lockWithin(FileChannel c, long timeoutMs) throws IOException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (true) {
            try {
                FileLock lock = c.tryLock();
                if (lock != null) {
                    return lock;
                }
            } catch (OverlappingFileLockException e) {
                // another writer of this part in this JVM holds it: wait as for one in another process
            }
            if (System.currentTimeMillis() > deadline) {
                throw new IOException("the lock of " + file + " stayed held for " + timeoutMs + " ms (a writer of " + part
                        + " stopped while writing?)");
            }
            LockSupport.parkNanos(5_000_000L); // a retry timer: file locks cannot be waited on with a deadline
        }
    }

    private IllegalStateException fenced(OwnerToken stored, OwnerToken mine) {
        return new IllegalStateException(part + " now belongs to " + stored + ", not to this writer's " + mine + " (" + file
                + "): this peer was declared lost and its share taken over, so it writes no more");
    }

    private static OwnerToken read(FileChannel c) throws IOException {
        if (c.size() < 16) {
            return null;
        }
        ByteBuffer b = ByteBuffer.allocate(16);
        while (b.hasRemaining() && c.read(b, b.position()) >= 0) {
            // read the whole token
        }
        b.flip();
        return new OwnerToken(b.getLong(), b.getLong());
    }

    private static void write(FileChannel c, OwnerToken owner) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(16).putLong(owner.world()).putLong(owner.view());
        b.flip();
        c.truncate(0);
        while (b.hasRemaining()) {
            c.write(b, b.position());
        }
        c.force(false);
    }
}
