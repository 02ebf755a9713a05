package air.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./air} script gives the peers it starts under {@code srun} and {@code mpjrun} a fresh
 * secret of their run (secure by default: peers off loopback refuse to start without one). Runs a
 * copy of the script in a scratch tree with a stand-in JDK, {@code srun} and MPJ home, which
 * record what they were given instead of starting anything; every file is under the test's
 * temporary folder.
 */
class AirScriptSecretTest {

    private static final Path SCRIPT = Path.of(System.getProperty("user.dir")).getParent().resolve("air");
    private static final String HEX64 = "[0-9a-f]{64}";

    @TempDir
    Path tmp;

    /** The scratch tree: the script, a built samples jar newer than every source, stand-ins; returns the copy of the script. */
    private Path scratch() throws IOException {
        Path root = tmp.resolve("root");
        Path flags = root.resolve("air-runtime/src/main/resources/air/runtime/jit-flags");
        Files.createDirectories(flags.getParent());
        Files.writeString(flags, "");
        Files.setLastModifiedTime(flags, FileTime.fromMillis(System.currentTimeMillis() - 3_600_000));
        Path jar = root.resolve("samples/target/air-samples.jar");
        Files.createDirectories(jar.getParent());
        Files.writeString(jar, "");
        executable(root.resolve("tools/mpj-home.sh"), "mkdir -p \"$1/lib\"; echo \"$1\"");
        Files.writeString(root.resolve("job.jar"), "");
        Path air = root.resolve("air");
        Files.copy(SCRIPT, air);
        // the stand-in JDK: says it is 25; as the java that runs mpjrun, records its arguments and the secret file it names
        Path log = tmp.resolve("java.log");
        executable(tmp.resolve("jdk/bin/javac"), "exit 0");
        executable(tmp.resolve("jdk/bin/java"), String.join("\n",
                "if [ \"$1\" = -XshowSettings:properties ]; then echo '    java.specification.version = 25' >&2; exit 0; fi",
                "for a in \"$@\"; do echo \"arg $a\" >> '" + log + "'; case \"$a\" in -Dair.secret.file=*) f=\"${a#*=}\";",
                "  echo \"mode $(stat -c %a \"$f\") dir $(stat -c %a \"$(dirname \"$f\")\") secret $(cat \"$f\")\" >> '" + log + "';; esac; done"));
        executable(tmp.resolve("bin/srun"),
                "echo \"secret ${AIR_SECRET:-none} per-run ${AIR_SECRET_PER_RUN:-no} args $*\" >> '" + tmp.resolve("srun.log") + "'");
        return air;
    }

    private static void executable(Path file, String body) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, "#!/usr/bin/env bash\n" + body + "\n", StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
    }

    private String run(Path air, Map<String, String> extra, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("bash", air.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).directory(tmp.toFile());
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("AIR_") || k.equals("JAVA_HOME"));
        env.put("JAVA_HOME", tmp.resolve("jdk").toString());
        env.put("AIR_JDK_DIRS", tmp.resolve("no-jdks").toString());
        env.put("PATH", tmp.resolve("bin") + ":/usr/bin:/bin");
        env.put("HOME", tmp.resolve("home").toString());
        env.put("AIR_MPJ_HOME", tmp.resolve("mpj-home").toString());
        env.putAll(extra);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as(out).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }

    private List<String> lines(String log) throws IOException {
        Path f = tmp.resolve(log);
        List<String> all = Files.readAllLines(f, StandardCharsets.UTF_8);
        Files.delete(f);
        return all;
    }

    @Test
    void under_srun_every_run_exports_a_fresh_secret_unless_one_is_set() throws Exception {
        Path air = scratch();
        Map<String, String> rv = Map.of("AIR_RENDEZVOUS", "127.0.0.1:7700");
        run(air, rv, "run", "root/job.jar", "my.Main", "--srun", "2", "x");
        String first = lines("srun.log").getFirst();
        run(air, rv, "run", "root/job.jar", "my.Main", "--srun", "2", "x");
        String second = lines("srun.log").getFirst();
        assertThat(first).as("a secret made for this run alone says so: it signs no checkpoint files")
                .matches("secret " + HEX64 + " per-run 1 args -n 2 .*my\\.Main x");
        assertThat(second).matches("secret " + HEX64 + " per-run 1 args .*").isNotEqualTo(first);
        run(air, Map.of("AIR_RENDEZVOUS", "127.0.0.1:7700", "AIR_SECRET", "mine"), "run", "root/job.jar", "my.Main", "--srun", "2");
        assertThat(lines("srun.log").getFirst()).startsWith("secret mine per-run no args ");
    }

    @Test
    void under_mpjrun_the_peers_get_an_owner_only_secret_file_that_is_removed_after_the_run() throws Exception {
        Path air = scratch();
        run(air, Map.of(), "run", "root/job.jar", "my.Main", "--mpjrun", "2", "x");
        List<String> own = lines("java.log");
        run(air, Map.of(), "mpjrun", "2", "5M", "1");
        List<String> ysb = lines("java.log");
        for (List<String> log : List.of(own, ysb)) {
            String property = log.stream().filter(l -> l.startsWith("arg -Dair.secret.file=")).findFirst().orElseThrow(() -> new AssertionError(log));
            Path file = Path.of(property.substring("arg -Dair.secret.file=".length()));
            assertThat(file.startsWith(tmp.resolve("home/.air/secrets"))).as("%s is in $HOME/.air/secrets", file).isTrue();
            assertThat(log).anyMatch(l -> l.matches("mode 600 dir 700 secret " + HEX64));
            int at = log.indexOf(property);
            assertThat(log.get(at - 1)).as("a secret made for this run alone says so").isEqualTo("arg -Dair.secret.per.run=true");
            // before the class name (the stand-in logs the file's mode after it): mpjrun passes what precedes it to the peers' JVMs
            assertThat(log.get(at + 2)).matches("arg (my\\.Main|air\\.samples\\.ysb\\.YsbMain)");
            assertThat(file).as("the run's secret file is removed when it ends").doesNotExist();
        }
        assertThat(own.stream().filter(l -> l.startsWith("mode ")).findFirst())
                .isNotEqualTo(ysb.stream().filter(l -> l.startsWith("mode ")).findFirst());
    }
}
