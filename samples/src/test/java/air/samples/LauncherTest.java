package air.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code air} launcher finds a JDK >= 21 or says what to install. */
class LauncherTest {

    private static final Path LAUNCHER = Path.of("..", "air").toAbsolutePath().normalize();

    record Result(int exit, String output) { }

    private static Result run(Map<String, String> env, String... args) throws IOException, InterruptedException {
        String[] command = new String[args.length + 2];
        command[0] = "bash";
        command[1] = LAUNCHER.toString();
        System.arraycopy(args, 0, command, 2, args.length);
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        try {
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("launcher finished").isTrue();
            return new Result(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void says_what_to_install_when_no_jdk_21_exists(@TempDir Path empty) throws Exception {
        Result r = run(Map.of("JAVA_HOME", empty.resolve("nope").toString(), "AIR_JDK_DIRS", empty.toString()), "help");
        assertThat(r.exit()).as("4: the environment lacks something").isEqualTo(4);
        assertThat(r.output()).contains("no JDK 21 or newer found").contains("apt-get install openjdk-21-jdk");
    }

    @Test
    void skips_an_old_jdk_in_java_home(@TempDir Path dirs) throws Exception {
        Path old = dirs.resolve("jdk-17");
        Files.createDirectories(old.resolve("bin"));
        for (String tool : new String[] {"java", "javac"}) {
            Path exe = old.resolve("bin").resolve(tool);
            Files.writeString(exe, "#!/bin/sh\necho '    java.specification.version = 17' >&2\n");
            exe.toFile().setExecutable(true);
        }
        Result r = run(Map.of("JAVA_HOME", old.toString(), "AIR_JDK_DIRS", dirs.toString()), "help");
        assertThat(r.exit()).isEqualTo(4);
        assertThat(r.output()).contains("no JDK 21 or newer found");
    }

    @Test
    void rejects_an_unknown_command_by_name() throws Exception {
        Result r = run(Map.of(), "frobnicate");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.output()).contains("unknown command 'frobnicate'");
    }

    @Test
    void every_command_answers_help_with_its_usage_and_exit_0() throws Exception {
        for (String command : new String[] {"run", "bench", "test", "build", "quickstart", "mpj-daemon", "mpjrun"}) {
            Result r = run(Map.of(), command, "--help");
            assertThat(r.exit()).as(command + " --help").isZero();
            assertThat(r.output()).as(command + " --help").contains("usage: ./air " + command);
        }
    }

    @Test
    void a_bad_run_line_is_a_usage_error() throws Exception {
        Result r = run(Map.of(), "run");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.output()).contains("usage: ./air run JAR MAIN");
    }
}
