package air.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * The JVM flags AIR runs best with, from one place: the resource {@code air/runtime/jit-flags},
 * which {@code ./air}, the launchers and the integration tests all read. HotSpot does not inline a
 * method it already compiled into a large body, so a fused chain whose head was compiled on its own
 * keeps a call per record and its records escape to the heap; forcing inlining of the operator
 * package ({@link #OPERATOR_PACKAGE}, where every per-record operator class lives) makes each chain
 * one compiled loop. See docs/operations.md, "Tuning".
 */
public final class JvmFlags {

    /** The package whose classes run per record; moving a per-record class out of it loses the inlining. */
    public static final String OPERATOR_PACKAGE = "air.runtime.impl.ops";

    private static final List<String> RECOMMENDED = load();

    private JvmFlags() {
    }

    /** The flags, one per element, as a JVM command line takes them. */
    public static List<String> recommended() {
        return RECOMMENDED;
    }

    /** Whether this JVM was started with the operator package force-inlined. */
    public static boolean operatorsForceInlined() {
        try {
            return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                    .anyMatch(a -> a.startsWith("-XX:CompileCommand") && a.contains(OPERATOR_PACKAGE));
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    private static List<String> load() {
        try (InputStream in = JvmFlags.class.getResourceAsStream("jit-flags")) {
            if (in == null) {
                throw new IllegalStateException("resource air/runtime/jit-flags is missing from the air-runtime jar");
            }
            List<String> flags = Arrays.stream(new String(in.readAllBytes(), StandardCharsets.UTF_8).trim().split("\\s+")).toList();
            if (flags.stream().noneMatch(f -> f.contains(OPERATOR_PACKAGE))) {
                throw new IllegalStateException("air/runtime/jit-flags does not inline " + OPERATOR_PACKAGE + ": " + flags);
            }
            return flags;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
