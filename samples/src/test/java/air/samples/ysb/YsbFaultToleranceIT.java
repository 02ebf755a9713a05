package air.samples.ysb;

import static org.assertj.core.api.Assertions.assertThat;

import air.launcher.LocalCluster;
import air.launcher.RestartSupervisor;
import air.runtime.JvmFlags;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpointing and rollback over four MPJ peer JVMs: the launcher kills a random peer three times
 * at seeded random moments, restarts every peer each time, and the output still matches the
 * reference checksum with nothing lost or duplicated. The same for the window joins, a job with a
 * million keys per window, a keyed process function's state and timers ({@code --query process})
 * and session windows ({@code --query sessions}).
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class YsbFaultToleranceIT {

    private static final String REFERENCE_400M = "eeb319f3";
    private static final String REFERENCE_100M = "353f9070c143bdb8ae84216855cea337d2b2fa7052f6d053cc55380ef864d937";
    /** The sessions query's at 3M (YSB-SPEC 11: seed 42, rate 1000, gap 2000 ms). */
    private static final String SESSIONS_3M = "89e136d0f2dc798efc3013469b3974766fbda3e5a8c84662a6dfb6b94e11612a";
    private static final List<String> JVM = Stream.concat(Stream.of("-Xmx384m"), JvmFlags.recommended().stream()).toList();

    /** YSB-mem, 400M events, over four peers with checkpoints every 500 ms, plus {@code extra} arguments. */
    private static List<String> run(Path dir, String... extra) throws Exception {
        return runWith(JVM, dir, "400M", extra);
    }

    private static List<String> runWith(List<String> jvm, Path dir, String n, String... extra) throws Exception {
        return runWith(jvm, dir, n, UnaryOperator.identity(), extra);
    }

    private static List<String> runWith(List<String> jvm, Path dir, String n, UnaryOperator<RestartSupervisor.Options> adjust,
                                        String... extra) throws Exception {
        List<String> argv = new ArrayList<>(List.of(n, "1", "--peers", "4", "--checkpoints", dir.resolve("ck").toString(),
                "--checkpoint-interval", "500ms", "--quiet", "--out", dir.resolve("ysb.csv").toString()));
        argv.addAll(List.of(extra));
        List<String> out = Collections.synchronizedList(new ArrayList<>());
        YsbArgs args = YsbArgs.parse(argv.toArray(String[]::new));
        LocalCluster.Spec spec = LocalCluster.Spec.of(4, YsbMain.class.getName(), argv).withJvmOptions(jvm).withOutput(out::add);
        int rc = YsbSupervisor.run(args, spec, adjust);
        assertThat(rc).as(String.join("\n", out)).isZero();
        return out;
    }

    @Test
    void four_peers_killed_three_times_lose_nothing_and_duplicate_nothing(@TempDir Path dir) throws Exception {
        List<String> out = run(dir, "--kill", "3", "--kill-seed", "11", "--routing", "AIR", "--progress", "hewmeld");
        String check = out.stream().filter(l -> l.startsWith("CHECK ")).findFirst().orElseThrow(() -> new AssertionError(String.join("\n", out)));
        System.out.println(check);
        assertThat(check).startsWith("CHECK lost=0 dup=0 kills=3 ");
        assertThat(out).filteredOn(l -> l.startsWith("[launcher] kill -9 peer")).hasSize(3);
        assertThat(out).anyMatch(l -> l.startsWith("[peer 0] RESULT") && l.contains("sha256=" + REFERENCE_400M));
        assertThat(out).contains("[peer 0] ysb: checksum matches the reference (YSB-SPEC 6.3)");
        assertThat(out).anyMatch(l -> l.contains("RECOVERING on peer") && l.contains("resuming from checkpoint"));
    }

    @Test
    void a_job_with_a_million_keys_per_window_killed_three_times_loses_nothing(@TempDir Path dir) throws Exception {
        List<String> bigger = Stream.concat(Stream.of("-Xmx1g"), JvmFlags.recommended().stream()).toList();
        // three 10 s windows of event time; each kill 0.1-1 s after a checkpoint everywhere: a resumed attempt holds little
        // work, and on a fast machine the default window (0.3-2.8 s) let the job end before the third kill
        List<String> out = runWith(bigger, dir, "30M", o -> o.withKillWindow(100, 900), "--query", "users", "--rate", "1M", "--kill", "3",
                "--kill-seed", "3");
        String check = out.stream().filter(l -> l.startsWith("CHECK ")).findFirst().orElseThrow(() -> new AssertionError(String.join("\n", out)));
        System.out.println(check);
        assertThat(check).startsWith("CHECK lost=0 dup=0 kills=3 ");
        long keysPerWindow = Long.parseLong(check.replaceAll(".* rows=(\\d+).*", "$1")) / 3;
        assertThat(keysPerWindow).as("keys per window").isGreaterThan(1_000_000);
    }

    @Test
    void join_jobs_killed_twice_under_checkpoints_lose_nothing_and_duplicate_nothing(@TempDir Path dir) throws Exception {
        // YSBM: two branches of one source and a window join; the enrichment: a lookup join against a changelog, then a window
        for (String[] job : new String[][] {{"200M", "ysbm"}, {"30M", "enrich"}}) {
            Path run = Files.createDirectories(dir.resolve(job[1]));
            List<String> out = runWith(JVM, run, job[0], "--query", job[1], "--kill", "2", "--kill-seed", "7", "--routing", "AIR",
                    "--progress", "hewmeld");
            String check = out.stream().filter(l -> l.startsWith("CHECK ")).findFirst()
                    .orElseThrow(() -> new AssertionError(String.join("\n", out)));
            System.out.println(job[1] + ": " + check);
            assertThat(check).as(job[1]).startsWith("CHECK lost=0 dup=0 kills=2 ");
            assertThat(out).as(job[1]).anyMatch(l -> l.contains("RECOVERING on peer") && l.contains("resuming from checkpoint"));
        }
    }

    @Test
    void a_keyed_process_function_killed_twice_restores_its_map_state_and_timers(@TempDir Path dir) throws Exception {
        // YSB's counts per campaign and window, kept in a process function's map state and emitted by event-time timers
        // 100M: at 20M a resumed run could end before the second kill's moment (kills land 0.3-2.8 s after a start)
        List<String> out = runWith(JVM, dir, "100M", "--query", "process", "--kill", "2", "--kill-seed", "5", "--routing", "AIR",
                "--progress", "hewmeld");
        String check = checkLine(out);
        System.out.println("process: " + check);
        assertThat(check).startsWith("CHECK lost=0 dup=0 kills=2 ");
        assertThat(out).filteredOn(l -> l.startsWith("[launcher] kill -9 peer")).hasSize(2);
        assertThat(out).anyMatch(l -> l.contains("RECOVERING on peer") && l.contains("resuming from checkpoint"));
        assertThat(out).anyMatch(l -> l.startsWith("[peer 0] RESULT") && l.contains("sha256=" + REFERENCE_100M));
        assertThat(out).contains("[peer 0] ysb: checksum matches the reference (YSB-SPEC 6.3)");
    }

    @Test
    void session_windows_killed_twice_restore_their_open_sessions(@TempDir Path dir) throws Exception {
        // sessions (YSB-SPEC 11) at the spec's rate 1000: 3M events (its largest reference), long enough for two kills
        List<String> out = runWith(JVM, dir, "3M", "--query", "sessions", "--kill", "2", "--kill-seed", "9");
        String check = checkLine(out);
        System.out.println("sessions: " + check);
        assertThat(check).startsWith("CHECK lost=0 dup=0 kills=2 ");
        assertThat(out).filteredOn(l -> l.startsWith("[launcher] kill -9 peer")).hasSize(2);
        assertThat(out).anyMatch(l -> l.contains("RECOVERING on peer") && l.contains("resuming from checkpoint"));
        assertThat(out).anyMatch(l -> l.startsWith("[peer 0] RESULT") && l.contains("sha256=" + SESSIONS_3M) && l.contains("gap_ms=2000"));
        assertThat(out).contains("[peer 0] ysb: sessions: checksum matches the reference (YSB-SPEC 11)");
    }

    private static String checkLine(List<String> out) {
        return out.stream().filter(l -> l.startsWith("CHECK ")).findFirst().orElseThrow(() -> new AssertionError(String.join("\n", out)));
    }

    @Test
    void a_damaged_newest_checkpoint_is_skipped_with_a_warning_and_the_rerun_still_matches(@TempDir Path dir) throws Exception {
        // a first run with one kill leaves checkpoints behind; damage the newest, then run again from the directory
        run(dir, "--kill", "1", "--kill-seed", "5");
        Path job;
        try (var jobs = Files.list(dir.resolve("ck"))) {
            job = jobs.filter(p -> p.getFileName().toString().startsWith("ysb-mem")).findFirst().orElseThrow();
        }
        Path newest;
        try (var ids = Files.list(job)) {
            newest = ids.filter(Files::isDirectory).max(Path::compareTo).orElseThrow(); // checkpoints, not the run's lock and marker files
        }
        Path file = newest.resolve("peer-2-of-4.ckpt");
        byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length / 3] ^= 0x10;
        Files.write(file, bytes);
        List<String> out = run(dir);
        // the warning names the damaged file by its path
        assertThat(out).anyMatch(l -> l.contains("is unusable: ") && l.contains("/peer-2-of-4.ckpt: checksum mismatch")
                && l.contains("trying the previous one"));
        assertThat(out).contains("[peer 0] ysb: checksum matches the reference (YSB-SPEC 6.3)");
    }
}
