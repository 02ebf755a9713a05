package air.checkpoint.files;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * What the checkpoint store creates is its user's alone: a checkpoint holds the job's state (keys,
 * records, accumulators), which other local users have no business reading, and a file they could
 * change would be restored as the job's own. Files are created {@code rw-------} and the
 * directories the store makes {@code rwx------}, atomically at creation (whatever the umask), on
 * file systems that support POSIX permissions; elsewhere the defaults stand. Directories that exist
 * already are left as they are: the operator chose them.
 */
final class OwnerOnly {

    private static final FileAttribute<?> FILE = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
    private static final FileAttribute<?> DIRECTORY = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));

    private OwnerOnly() {
    }

    /** {@link Files#createDirectories}, each directory it makes owner-only. */
    static void createDirectories(Path dir) throws IOException {
        if (posix(dir)) {
            Files.createDirectories(dir, DIRECTORY);
        } else {
            Files.createDirectories(dir);
        }
    }

    /** {@link FileChannel#open}, the file owner-only when {@code options} create it. */
    static FileChannel open(Path file, Set<? extends OpenOption> options) throws IOException {
        return posix(file) ? FileChannel.open(file, options, FILE) : FileChannel.open(file, options);
    }

    private static boolean posix(Path p) {
        return p.getFileSystem().supportedFileAttributeViews().contains("posix");
    }
}
