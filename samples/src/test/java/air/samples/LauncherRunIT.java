package air.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code ./air run JAR MAIN ...}: a user's own job jar, compiled here against the samples jar, run embedded and as local peers. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class LauncherRunIT {

    private static final Path LAUNCHER = Path.of("..", "air").toAbsolutePath().normalize();
    private static final Path SAMPLES_JAR = Path.of("target", "air-samples.jar").toAbsolutePath();

    @TempDir
    static Path dir;
    static Path jar;

    @BeforeAll
    static void build_a_users_jar() throws IOException {
        Path src = Files.createDirectories(dir.resolve("src/example"));
        Files.writeString(src.resolve("Hello.java"), """
                package example;
                public final class Hello {
                    public static void main(String[] args) {
                        System.out.println("hello " + String.join(" ", args));
                    }
                }
                """);
        Files.writeString(src.resolve("Peer.java"), """
                package example;
                import air.runtime.Cluster;
                public final class Peer {
                    public static void main(String[] args) throws Exception {
                        try (Cluster c = Cluster.join(args)) {
                            System.out.println("peer " + c.self() + " of " + c.peers() + " args=" + String.join(",", c.userArgs()));
                        }
                    }
                }
                """);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int rc = javac.run(null, null, null, "-d", classes.toString(), "-cp", SAMPLES_JAR.toString(),
                src.resolve("Hello.java").toString(), src.resolve("Peer.java").toString());
        assertThat(rc).as("javac").isZero();
        jar = dir.resolve("app.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar)); Stream<Path> files = Files.walk(classes)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                Files.copy(f, out);
                out.closeEntry();
            }
        }
    }

    record Result(int exit, String output) { }

    @SuppressWarnings("try") // the process's input is held open only to be closed at the end: nothing is written to it
    private static Result air(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("bash", LAUNCHER.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (OutputStream ignored = p.getOutputStream()) {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("./air run finished").isTrue();
            return new Result(p.exitValue(), out);
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void a_users_main_runs_embedded_with_its_own_arguments() throws Exception {
        Result r = air("run", jar.toString(), "example.Hello", "a", "--b");
        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.output()).contains("hello a --b");
    }

    @Test
    void a_users_main_runs_as_local_peers_that_join_one_cluster() throws Exception {
        for (String transport : new String[] {"mpj", "tcp"}) {
            Result r = air("run", jar.toString(), "example.Peer", "--peers", "2", "--transport", transport, "x", "--y");
            assertThat(r.exit()).as(r.output()).isZero();
            assertThat(r.output()).contains("peer 0 of 2 args=x,--y").contains("peer 1 of 2 args=x,--y");
        }
    }

    @Test
    void usage_errors_exit_2_naming_what_is_wrong() throws Exception {
        Result none = air("run");
        assertThat(none.exit()).isEqualTo(2);
        assertThat(none.output()).contains("usage: ./air run JAR MAIN");
        Result missing = air("run", dir.resolve("nope.jar").toString(), "example.Hello");
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.output()).contains("no such jar").contains("nope.jar");
        Result zero = air("run", jar.toString(), "example.Peer", "--peers", "0");
        assertThat(zero.exit()).isEqualTo(2);
        assertThat(zero.output()).contains("'--peers': must be in [1, 256], got 0");
        Result transport = air("run", jar.toString(), "example.Peer", "--peers", "2", "--transport", "udp");
        assertThat(transport.exit()).isEqualTo(2);
        assertThat(transport.output()).contains("'--transport': must be mpj or tcp, got 'udp'");
    }
}
