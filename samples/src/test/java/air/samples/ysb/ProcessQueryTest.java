package air.samples.ysb;

import static org.assertj.core.api.Assertions.assertThat;

import air.test.InJvmPeers;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The process query ({@code --query process}): YSB's counts per campaign and window from a keyed
 * process function's map state and event-time timers are the YSB query's rows byte for byte, on
 * 1, 2 and 3 workers, under both progress modes and routings and on in-JVM peers, and are checked
 * against YSB's references and output check.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ProcessQueryTest {

    private static final String REFERENCE_5M = "918c079abd661bab8445c17beef6f9bfdec2492356713c80f4c1895a67855871";

    @Test
    void five_million_events_on_one_worker_match_ysbs_reference_and_pass_its_verification(@TempDir Path dir) throws IOException {
        YsbArgs args = YsbArgs.parse("5M", "1", "--query", "process", "--quiet", "--out", dir.resolve("p.csv").toString());
        YsbRun.Outcome o = YsbRun.run(args, null);
        String sha = o.rows().writeCanonical(args.out());
        assertThat(sha).isEqualTo(REFERENCE_5M).isEqualTo(YsbReference.sha256(args));
        assertThat(o.rows().views()).isEqualTo(1_667_184);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(YsbReport.verify(o, sha, new PrintStream(err, true, StandardCharsets.UTF_8))).isTrue();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("checksum matches the reference (YSB-SPEC 6.3)");
        assertThat(YsbOutputCheck.check(args.out(), args)).isEqualTo(new YsbOutputCheck.Outcome(0, 0, o.rows().size()));
    }

    @ParameterizedTest(name = "workers={0} routing={1} progress={2}")
    @CsvSource({"1,KEY,watermark", "2,KEY,watermark", "2,AIR,hewmeld", "3,KEY,hewmeld", "3,AIR,watermark"})
    void the_process_function_writes_the_ysb_querys_bytes(int workers, String routing, String progress, @TempDir Path dir)
            throws IOException {
        String p = Integer.toString(workers);
        YsbArgs process = YsbArgs.parse("3M", p, "--query", "process", "--routing", routing, "--progress", progress, "--quiet",
                "--out", dir.resolve("process.csv").toString());
        YsbArgs ysb = YsbArgs.parse("3M", p, "--routing", routing, "--progress", progress, "--quiet",
                "--out", dir.resolve("ysb.csv").toString());
        YsbRows rows = YsbRun.run(process, null).rows();
        assertThat(rows.writeCanonical(process.out())).isEqualTo(YsbRun.run(ysb, null).rows().writeCanonical(ysb.out()));
        // every (window, campaign) once, with the loop's count: nothing lost, nothing emitted twice
        assertThat(YsbOutputCheck.check(process.out(), process)).isEqualTo(new YsbOutputCheck.Outcome(0, 0, rows.size()));
        assertThat(rows.size()).isEqualTo(300); // 3M events at 100000/s: three windows of the 100 campaigns, two closed by timers mid-run
    }

    @ParameterizedTest(name = "peers={0} workers={1} progress={2}")
    @CsvSource({"2,1,watermark", "3,2,hewmeld"})
    void in_jvm_peers_write_the_reference_bytes(int peers, int workers, String progress, @TempDir Path dir) throws IOException {
        YsbArgs args = YsbArgs.parse("5M", Integer.toString(workers), "--query", "process", "--progress", progress, "--quiet");
        YsbRows rows = YsbRows.merge(InJvmPeers.run(peers, Duration.ofSeconds(100), cluster -> {
            YsbRun.Outcome o = YsbRun.run(args, null, cluster);
            return YsbRows.decode(o.rows().encode(0), cluster.self());
        }));
        assertThat(rows.writeCanonical(dir.resolve("p.csv"))).isEqualTo(REFERENCE_5M);
    }

    @Test
    void the_command_line_names_the_query_and_its_reference() {
        YsbArgs a = YsbArgs.parse("20M", "--query", "process");
        assertThat(a.query()).isEqualTo(YsbArgs.Query.PROCESS);
        assertThat(a.query().shape()).isEqualTo(YsbRows.Shape.COUNTS);
        assertThat(a.rate()).isEqualTo(100_000);
        assertThat(a.out()).isEqualTo(Path.of("out", "process-20000000.csv"));
        assertThat(YsbReference.sha256(a)).isEqualTo(YsbReference.sha256(20_000_000, 42, 100_000)).isNotNull();
        assertThat(YsbArgs.usage().replaceAll("\\s+", " ")).contains("process (ysb as a keyed process function");
    }
}
