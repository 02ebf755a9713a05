package air.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import air.samples.ysb.YsbArgs;
import air.samples.ysb.YsbRun;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * benchmarks/ysb-check.sh, which the benchmark scripts hold every run to: fake run logs and output
 * files, the real loop (on this test's class path) for runs without a reference checksum.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class YsbCheckScriptTest {

    private static final Path LIB = Path.of("ysb-check.sh").toAbsolutePath();

    @TempDir
    Path dir;

    private record Result(int status, String out) { }

    /** Runs {@code script} in bash after sourcing the library, with JAVA, BENCH_JAR and CHECK_DIR set. */
    private Result bash(String script) throws IOException, InterruptedException {
        Path check = Files.createDirectories(dir.resolve("check"));
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", "set -euo pipefail; source \"$LIB\"; " + script)
                .directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().put("LIB", LIB.toString());
        pb.environment().put("JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString());
        pb.environment().put("BENCH_JAR", System.getProperty("java.class.path"));
        pb.environment().put("CHECK_DIR", check.toString());
        Process p = pb.start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(100, TimeUnit.SECONDS)).isTrue();
            return new Result(p.exitValue(), out);
        } finally {
            p.destroyForcibly();
        }
    }

    private Path log(String name, String... lines) throws IOException {
        return Files.write(dir.resolve(name), List.of(lines));
    }

    /** The engine's canonical output for these arguments, in {@code name}. */
    private Path engineOutput(String name, String... argv) throws IOException {
        Path out = dir.resolve(name);
        YsbRun.run(YsbArgs.parse(argv), null).rows().writeCanonical(out);
        return out;
    }

    @Test
    void pct_is_nearest_rank() throws Exception {
        assertThat(bash("seq 1 100 | sort -R --random-source=<(yes) | pct 0.5; seq 1 100 | pct 0.95; seq 1 100 | pct 0.99; "
                + "seq 1 100 | pct 1; : | pct 0.5; echo 7 | pct 0.5; echo 7 | pct 0.95; printf '30\\n10\\n20\\n' | pct 0.5; "
                + "printf '3\\n9\\n' | pct 0.5; seq 10 10 100 | pct 0.95"))
                .isEqualTo(new Result(0, "50\n95\n99\n100\nn/a\n7\n7\n20\n3\n100\n"));
    }

    @Test
    void a_run_that_matches_the_reference_is_vouched_for() throws Exception {
        log("ok.log", "RESULT engine=air-jvm n=5000000", "[peer 0] ysb: checksum matches the reference (YSB-SPEC 6.3)");
        assertThat(bash("vouch 'run=engine1 round=1' ok.log missing.csv 5M; vouch_summary"))
                .isEqualTo(new Result(0, "OUTPUT checked=1 differed=0 matched_reference=1 matched_loop=0\n"));
    }

    @Test
    void a_run_whose_checksum_differs_from_the_reference_differs() throws Exception {
        log("bad.log", "RESULT engine=air-jvm n=5000000",
                "[peer 0] ysb: MISMATCH: checksum 0123 differs from the reference 918c");
        Result r = bash("vouch 'run=engine2 round=3' bad.log missing.csv 5M || echo status=$?; vouch_summary");
        assertThat(r.out()).isEqualTo("DIFFERS run=engine2 round=3: ysb: MISMATCH: checksum 0123 differs from the reference 918c\n"
                + "status=1\n"
                + "OUTPUT checked=1 differed=1 matched_reference=0 matched_loop=0 (runs that differed have no figures above)\n");
        assertThat(r.status()).isEqualTo(1);
    }

    @Test
    void a_run_whose_checker_lost_or_duplicated_views_differs() throws Exception {
        log("ft.log", "CHECK lost=0 dup=12 kills=3 recovery_p50_ms=1 rows=500", "ysb: checksum matches the reference (YSB-SPEC 6.3)");
        assertThat(bash("vouch 'recovery transport=tcp' ft.log missing.csv 5M || echo status=$?").out())
                .isEqualTo("DIFFERS recovery transport=tcp: the checker says CHECK lost=0 dup=12\nstatus=1\n");
    }

    @Test
    void without_a_reference_the_output_must_be_the_loops_byte_for_byte() throws Exception {
        engineOutput("good.csv", "5000", "2", "--rate", "100");
        List<String> rows = Files.readAllLines(dir.resolve("good.csv"));
        rows.set(2, rows.get(2) + "0");
        Files.write(dir.resolve("bad.csv"), rows);
        engineOutput("users.csv", "3000", "2", "--rate", "100", "--query", "users");
        log("noref.log", "ysb: no reference checksum for these parameters; total of views checked");
        log("users.log", "ysb: users query: 2990 rows (keys per window), counts sum to 3000 of 3000 events");
        Result r = bash("vouch 'run=a' noref.log good.csv 5000 --rate 100; "
                + "vouch 'run=b' users.log users.csv 3000 --rate 100 --query users; "
                + "vouch 'run=c' noref.log bad.csv 5000 --rate 100 || echo status=$?; "
                + "vouch 'run=d' noref.log nothing.csv 5000 --rate 100 || echo status=$?; "
                + "vouch_summary || echo status=$?; ls check | grep -c '^loop-.*csv$'");
        String goodSha = sha256(dir.resolve("good.csv"));
        String badSha = sha256(dir.resolve("bad.csv"));
        long badByte = Files.mismatch(dir.resolve("bad.csv"), dir.resolve("good.csv")) + 1; // cmp counts from 1
        assertThat(r.out()).isEqualTo(
                "DIFFERS run=c: its output differs from the loop's at n=5000 --rate 100: sha256 " + badSha + " against " + goodSha
                        + ", first at byte " + badByte + ", line 3\nstatus=1\n"
                        + "DIFFERS run=d: it wrote no output file nothing.csv\nstatus=1\n"
                        + "OUTPUT checked=4 differed=2 matched_reference=0 matched_loop=2 (runs that differed have no figures above)\n"
                        + "status=1\n2\n");
    }

    @Test
    void a_remembered_loop_output_is_not_computed_again() throws Exception {
        Files.writeString(dir.resolve("timed-loop.csv"), "1700000000000,0000000000000001,1\n");
        log("noref.log", "ysb-loop: no reference checksum for these parameters; output written to timed-loop.csv");
        assertThat(bash("remember_loop_output timed-loop.csv 1G; vouch 'run=loop round=1' noref.log timed-loop.csv 1G; vouch_summary"))
                .isEqualTo(new Result(0, "OUTPUT checked=1 differed=0 matched_reference=0 matched_loop=1\n"));
    }

    @Test
    void every_script_that_runs_the_engine_checks_its_runs() throws IOException {
        try (Stream<Path> scripts = Files.list(LIB.getParent())) {
            List<Path> running = scripts.filter(p -> p.getFileName().toString().matches("ysb-.*\\.sh") && !p.equals(LIB))
                    .sorted().toList();
            assertThat(running).extracting(p -> p.getFileName().toString())
                    .containsExactly("ysb-ft.sh", "ysb-latency.sh", "ysb-peers.sh", "ysb-throughput.sh");
            for (Path script : running) {
                String text = Files.readString(script);
                assertThat(text).as(script.toString()).contains("source \"$ROOT/benchmarks/ysb-check.sh\"")
                        .containsPattern("\nvouch_summary\n$");
                assertThat(text.split("\\bvouch \"", -1).length - 1).as(script + ": vouch calls").isEqualTo(1);
            }
        }
    }

    private static String sha256(Path file) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    }
}
