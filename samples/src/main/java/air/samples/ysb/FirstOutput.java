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

    static String fileName(int attempt, int peer) {
        return "attempt-" + attempt + "-peer-" + peer;
    }
}
