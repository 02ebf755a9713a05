package air.channels.bootstrap;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A private {@code MPJ_HOME} for peers started on this machine: MPJ Express reads
 * {@code $MPJ_HOME/conf/mpjexpress.conf} for its log levels, and this one turns its logging off.
 * Without that file MPJ prints a stack trace while it starts, which the bootstrap then mutes.
 */
public final class QuietMpjHome {

    private static final String CONF = "conf/mpjexpress.conf";

    private QuietMpjHome() {
    }

    /** A fresh temporary home; {@link #delete} removes it. */
    public static Path create() throws IOException {
        Path home = Files.createTempDirectory("air-mpj-home");
        Files.createDirectories(home.resolve("conf"));
        Files.writeString(home.resolve(CONF), "mpjexpress.mpi.loglevel=OFF\nmpjexpress.mpjdaemon.loglevel=OFF\n");
        return home;
    }

    /** Whether {@code mpjHome} (the value of {@code MPJ_HOME}; null: unset) holds the conf MPJ reads. */
    public static boolean hasConf(String mpjHome) {
        return mpjHome != null && new File(mpjHome, CONF).isFile();
    }

    public static void delete(Path home) throws IOException {
        Files.deleteIfExists(home.resolve(CONF));
        Files.deleteIfExists(home.resolve("conf"));
        Files.deleteIfExists(home);
    }
}
