package air.channels.mpj;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A private {@code MPJ_HOME} for peers started on this machine: MPJ Express reads
 * {@code $MPJ_HOME/conf/mpjexpress.conf} for its log levels, and this one turns its logging off.
 */
public final class QuietMpjHome {

    private QuietMpjHome() {
    }

    /** A fresh temporary home; {@link #delete} removes it. */
    public static Path create() throws IOException {
        Path home = Files.createTempDirectory("air-mpj-home");
        Files.createDirectories(home.resolve("conf"));
        Files.writeString(home.resolve("conf/mpjexpress.conf"), "mpjexpress.mpi.loglevel=OFF\nmpjexpress.mpjdaemon.loglevel=OFF\n");
        return home;
    }

    public static void delete(Path home) throws IOException {
        Files.deleteIfExists(home.resolve("conf/mpjexpress.conf"));
        Files.deleteIfExists(home.resolve("conf"));
        Files.deleteIfExists(home);
    }
}
