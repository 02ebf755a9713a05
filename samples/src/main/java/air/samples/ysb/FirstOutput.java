package air.samples.ysb;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * For recovery times: when the supervising launcher asks (environment {@code AIR_FIRST_OUTPUT_DIR}
 * and {@code AIR_ATTEMPT}), a peer notes the wall-clock moment its first result row of this attempt
 * reached the sink, in {@code attempt-<A>-peer-<r>}.
 */
final class FirstOutput {

    static final String DIR = "AIR_FIRST_OUTPUT_DIR";
    static final String ATTEMPT = "AIR_ATTEMPT";

    private FirstOutput() {
    }

    static Runnable fromEnvironment(int peer) {
        String dir = System.getenv(DIR);
        String attempt = System.getenv(ATTEMPT);
        if (dir == null || attempt == null) {
            return () -> { };
        }
        Path file = Path.of(dir, fileName(Integer.parseInt(attempt), peer));
        return () -> {
            try {
                Files.writeString(file, Long.toString(System.currentTimeMillis()));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot note the first output in " + file, e);
            }
        };
    }

    /**
     * When the launcher asks, notes in {@code restored-<instance>-<ms>} the wall-clock moment a sink
     * writer restored from a checkpoint or a replica wrote its first new row.
     */
    static java.util.function.IntConsumer afterRestoreFromEnvironment() {
        String dir = System.getenv(DIR);
        if (dir == null) {
            return i -> { };
        }
        return instance -> {
            long now = System.currentTimeMillis();
            Path file = Path.of(dir, RESTORED + instance + "-" + now);
            try {
                Files.writeString(file, Long.toString(now));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot note the first output after a restore in " + file, e);
            }
        };
    }

    static final String RESTORED = "restored-";

    static String fileName(int attempt, int peer) {
        return "attempt-" + attempt + "-peer-" + peer;
    }
}
