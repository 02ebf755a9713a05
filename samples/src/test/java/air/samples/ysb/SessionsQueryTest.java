package air.samples.ysb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.test.InJvmPeers;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The sessions query (YSB-SPEC 11): the plain loop gives the spec's reference, the engine gives
 * the same bytes on 1, 2 and 4 workers, under both progress modes, under a job's AIR routing and on
 * two in-JVM peers, and the output check catches a wrong file.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SessionsQueryTest {

    static final String SHA_100K = "1f90dcb6017de672b30ae6cbbc1218644e7d0b225c09f7687a6b04e6aed3e5d8";

    @Test
    void the_plain_loop_gives_the_specs_reference() {
        YsbRows rows = SessionsLoop.rows(100_000, 42, 1_000, 2_000);
        assertThat(rows.size()).isEqualTo(14_190);
        assertThat(rows.views()).isEqualTo(100_000);
        assertThat(rows.line(0)).isEqualTo("1700000000000,1700000005961,3473ff97697367af,6");
        assertThat(rows.line(1)).isEqualTo("1700000000001,1700000002001,7aac5abe61cf58ef,1");
        assertThat(rows.checksum()).isEqualTo(SHA_100K).isEqualTo(YsbReference.sha256(YsbArgs.parse("100K", "--query", "sessions")));
    }

    @ParameterizedTest(name = "workers={0} progress={1} routing={2}")
    @CsvSource({"1,watermark,KEY", "2,watermark,KEY", "4,watermark,KEY", "2,hewmeld,KEY", "4,hewmeld,AIR", "2,watermark,AIR"})
    void the_engine_writes_the_reference_bytes(int workers, String progress, String routing, @TempDir Path dir) {
        YsbArgs args = YsbArgs.parse("100K", Integer.toString(workers), "--query", "sessions", "--progress", progress, "--routing", routing,
                "--quiet", "--out", dir.resolve("s.csv").toString());
        YsbRows rows = YsbRun.run(args, null).rows();
        assertThat(rows.size()).isEqualTo(14_190);
        assertThat(rows.checksum()).isEqualTo(SHA_100K);
    }

    @ParameterizedTest(name = "progress={0}")
    @CsvSource({"watermark", "hewmeld"})
    void two_in_jvm_peers_write_the_reference_bytes(String progress) {
        YsbArgs args = YsbArgs.parse("100K", "2", "--query", "sessions", "--progress", progress, "--quiet");
        YsbRows rows = YsbRows.merge(InJvmPeers.run(2, Duration.ofSeconds(100), cluster -> {
            YsbRun.Outcome o = YsbRun.run(args, null, cluster);
            return YsbRows.decode(o.rows().encode(0), cluster.self());
        }), YsbRows.Shape.SESSIONS);
        assertThat(rows.checksum()).isEqualTo(SHA_100K);
    }

    @Test
    void another_gap_is_checked_against_the_loop_and_has_no_reference(@TempDir Path dir) throws IOException {
        YsbArgs args = YsbArgs.parse("20K", "2", "--query", "sessions", "--gap", "700", "--quiet", "--out", dir.resolve("s.csv").toString());
        assertThat(args.gapMs()).isEqualTo(700);
        YsbRun.Outcome o = YsbRun.run(args, null);
        String sha = o.rows().writeCanonical(args.out());
        assertThat(sha).isEqualTo(SessionsLoop.rows(20_000, 42, 1_000, 700).checksum());
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(YsbReport.verify(o, sha, new PrintStream(err, true, StandardCharsets.UTF_8))).isTrue();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("no reference checksum").doesNotContain("MISMATCH");
    }

    // ---- the check feeds on bad output ----

    private static List<String> lines(YsbRows rows) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            out.add(rows.line(i));
        }
        return out;
    }

    private static YsbOutputCheck.Outcome check(Path dir, List<String> rows, String tail) throws IOException {
        Path f = dir.resolve("bad.csv");
        Files.writeString(f, String.join("\n", rows) + tail, StandardCharsets.US_ASCII);
        return SessionsCheck.compare(f, SessionsLoop.rows(5_000, 42, 1_000, 2_000));
    }

    @Test
    void the_check_names_lost_and_duplicated_events_and_refuses_files_that_are_not_canonical(@TempDir Path dir) throws IOException {
        List<String> good = lines(SessionsLoop.rows(5_000, 42, 1_000, 2_000));
        assertThat(check(dir, good, "\n")).isEqualTo(new YsbOutputCheck.Outcome(0, 0, good.size()));

        List<String> missing = new ArrayList<>(good);
        String gone = missing.remove(7);
        long goneCount = Long.parseLong(gone.substring(gone.lastIndexOf(',') + 1));
        assertThat(check(dir, missing, "\n")).isEqualTo(new YsbOutputCheck.Outcome(goneCount, 0, good.size() - 1));

        // the first session (6 events, [..., +5961)) cut in two: its events lost whole, the two halves' events extra
        List<String> split = new ArrayList<>(good);
        split.set(0, "1700000000000,1700000003000,3473ff97697367af,2");
        split.add(1, "1700000000000,1700000005961,3473ff97697367af,4".replace("1700000000000,", "1700000000001,"));
        YsbOutputCheck.Outcome o = check(dir, sortedByStart(split), "\n");
        assertThat(o.lost()).isEqualTo(6);
        assertThat(o.duplicated()).isEqualTo(6);

        List<String> swapped = new ArrayList<>(good);
        swapped.set(0, good.get(1));
        swapped.set(1, good.get(0));
        assertThatThrownBy(() -> check(dir, swapped, "\n")).isInstanceOf(IllegalStateException.class).hasMessageContaining(":2: not canonical")
                .hasMessageContaining("canonical order");
        assertThatThrownBy(() -> check(dir, good, "")).hasMessageContaining("the last row has no \\n");
        List<String> upper = new ArrayList<>(good);
        upper.set(0, good.get(0).toUpperCase());
        assertThatThrownBy(() -> check(dir, upper, "\n")).hasMessageContaining("not 16 lowercase hex digits");
        List<String> backwards = new ArrayList<>(good);
        backwards.set(0, "1700000000000,1700000000000,3473ff97697367af,6");
        assertThatThrownBy(() -> check(dir, backwards, "\n")).hasMessageContaining("ends after it starts");
    }

    private static List<String> sortedByStart(List<String> rows) {
        List<String> out = new ArrayList<>(rows);
        out.sort((a, b) -> {
            String[] x = a.split(",");
            String[] y = b.split(",");
            int c = Long.compare(Long.parseLong(x[0]), Long.parseLong(y[0]));
            return c != 0 ? c : Long.compareUnsigned(Long.parseUnsignedLong(x[2], 16), Long.parseUnsignedLong(y[2], 16));
        });
        return out;
    }

    @Test
    void a_run_whose_file_differs_fails_the_verification(@TempDir Path dir) throws IOException {
        YsbArgs args = YsbArgs.parse("100K", "1", "--query", "sessions", "--quiet", "--out", dir.resolve("s.csv").toString());
        YsbRun.Outcome o = YsbRun.run(args, null);
        List<String> rows = lines(o.rows());
        rows.remove(100);
        Files.writeString(args.out(), String.join("\n", rows) + "\n", StandardCharsets.US_ASCII);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(YsbReport.verify(o, "0".repeat(64), new PrintStream(err, true, StandardCharsets.UTF_8))).isFalse();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("sessions: MISMATCH against the generator's loop: lost=")
                .contains("differs from the reference " + SHA_100K);
    }

    @Test
    void the_command_line_defaults_and_refusals() {
        YsbArgs a = YsbArgs.parse("1M", "--query", "sessions");
        assertThat(a.rate()).isEqualTo(1_000);
        assertThat(a.gapMs()).isEqualTo(2_000);
        assertThat(YsbArgs.parse("1M").rate()).isEqualTo(100_000);
        assertThatThrownBy(() -> YsbArgs.parse("1M", "--gap", "500")).hasMessageContaining("--gap applies to the sessions query only");
        assertThatThrownBy(() -> YsbArgs.parse("1M", "--query", "sessions", "--gap", "0")).hasMessageContaining("--gap");
        assertThat(YsbArgs.usage()).contains("--gap").contains("sessions");
    }
}
