package air.samples.ysb;

import static org.assertj.core.api.Assertions.assertThat;

import air.workloads.ysb.YsbGenerator;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.eclipse.collections.impl.map.mutable.primitive.LongLongHashMap;
import org.eclipse.collections.impl.map.mutable.primitive.LongObjectHashMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What YsbReport vouches for: the reference checksum decides the exit status (YsbMain.report), and
 * the latency percentiles (nearest rank, YSB-SPEC 7.2, from air.launcher.Quantiles) cover the windows but the first and last.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class YsbReportTest {

    private static final String REFERENCE_5M = "918c079abd661bab8445c17beef6f9bfdec2492356713c80f4c1895a67855871";

    // the percentiles themselves are air.launcher.Quantiles' (QuantilesTest)

    /** Rows of four windows; window k's rows reach the sink {@code latenciesMs[k][i]} after the window's end. */
    private static YsbRun.Outcome latencyRun(long scheduleStart, long[][] latenciesMs) {
        YsbResultSink.Rows rows = new YsbResultSink.Rows();
        for (int w = 0; w < latenciesMs.length; w++) {
            long ws = YsbGenerator.T0 + w * YsbGenerator.WINDOW_MS;
            long endNanos = scheduleStart + (w + 1) * YsbGenerator.WINDOW_MS * 1_000_000L;
            for (int i = 0; i < latenciesMs[w].length; i++) {
                rows.add(ws, i, 1, endNanos + latenciesMs[w][i] * 1_000_000L);
            }
        }
        YsbArgs args = YsbArgs.parse("40K", "2", "--offered", "1000");
        return new YsbRun.Outcome(args, YsbRows.merge(List.of(rows)), scheduleStart, 1, 1, scheduleStart);
    }

    @Test
    void latency_line_ranks_every_row_but_those_of_the_first_and_last_windows() {
        long[] oneToFifty = LongStream.rangeClosed(1, 50).toArray();
        long[] fiftyOneToHundred = LongStream.rangeClosed(51, 100).map(i -> 151 - i).toArray(); // 100 .. 51, any order
        long[] outliers = {1_000_000, 0, 2_000_000};
        String line = YsbReport.latencyLine(latencyRun(5_000_000_000L, new long[][] {outliers, oneToFifty, fiftyOneToHundred, outliers}));
        assertThat(line).isEqualTo("LATENCY engine=air-jvm p=2 offered=1000 rows=100 p50_ms=50.000 p99_ms=99.000 max_ms=100.000 min_ms=1.000");
    }

    @Test
    void latency_line_of_a_run_without_middle_windows_says_nan() {
        String line = YsbReport.latencyLine(latencyRun(0, new long[][] {{5}, {6}}));
        assertThat(line).isEqualTo("LATENCY engine=air-jvm p=2 offered=1000 rows=0 p50_ms=NaN p99_ms=NaN max_ms=NaN min_ms=NaN");
    }

    // ---- the reference checksum decides the exit status

    /** The 5M rows as the loop of the checker counts them, with rows {@code swap[0]} and {@code swap[1]}'s counts swapped. */
    private static YsbRows fiveMillion(int... swap) {
        LongObjectHashMap<LongLongHashMap> counts = YsbOutputCheck.expectedCounts(5_000_000, 42, 100_000);
        YsbResultSink.Rows rows = new YsbResultSink.Rows();
        counts.forEachKeyValue((w, byCampaign) -> byCampaign.forEachKeyValue(
                (c, n) -> rows.add(YsbGenerator.T0 + w * YsbGenerator.WINDOW_MS, c, n, 0)));
        YsbRows merged = YsbRows.merge(List.of(rows));
        if (swap.length == 2) {
            long a = merged.count[swap[0]];
            merged.count[swap[0]] = merged.count[swap[1]];
            merged.count[swap[1]] = a;
        }
        return merged;
    }

    private record Report(int exit, String out, String err) { }

    private static Report report(YsbRows rows, Path out) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        YsbArgs args = YsbArgs.parse("5M", "2", "--out", out.toString());
        int exit = YsbMain.report(new YsbRun.Outcome(args, rows, 0, 1_000_000_000L, 1_000_000_000L, 0),
                new PrintStream(o, true, StandardCharsets.UTF_8), new PrintStream(e, true, StandardCharsets.UTF_8));
        return new Report(exit, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    }

    @Test
    void output_with_the_reference_checksum_exits_0(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("ysb.csv");
        Report r = report(fiveMillion(), out);
        assertThat(r.err()).contains("ysb: checksum matches the reference (YSB-SPEC 6.3)").doesNotContain("MISMATCH");
        assertThat(r.out()).startsWith("RESULT engine=air-jvm ").contains(" rows=500 views=1667184 sha256=" + REFERENCE_5M + " ");
        assertThat(r.exit()).isZero();
        assertThat(Files.readAllLines(out).get(0)).isEqualTo("1700000000000,016b5b652c36c774,3407");
    }

    @Test
    void output_whose_checksum_differs_from_the_reference_exits_1_saying_so(@TempDir Path dir) {
        YsbRows rows = fiveMillion(0, 1); // the total of views still right: only the checksum can tell
        assertThat(rows.count[0]).isNotEqualTo(rows.count[1]);
        Path out = dir.resolve("ysb.csv");
        Report r = report(rows, out);
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).doesNotContain("counts sum to").contains("ysb: MISMATCH: checksum ")
                .containsPattern("MISMATCH: checksum [0-9a-f]{64} differs from the reference " + REFERENCE_5M);
        assertThat(r.err()).doesNotContain("matches the reference");
    }

    @Test
    void output_with_a_wrong_total_exits_1_saying_so(@TempDir Path dir) {
        YsbRows rows = fiveMillion();
        rows.count[499]--;
        Report r = report(rows, dir.resolve("ysb.csv"));
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("ysb: MISMATCH: counts sum to 1667183 but the generator has 1667184 views")
                .contains("differs from the reference " + REFERENCE_5M);
    }

    @Test
    void without_a_reference_only_the_total_is_checked_and_it_says_so(@TempDir Path dir) {
        YsbResultSink.Rows rows = new YsbResultSink.Rows();
        YsbGenerator g = new YsbGenerator(42, 100_000);
        long views = LongStream.range(0, 1000).filter(g::isView).count();
        rows.add(YsbGenerator.T0, 1, views, 0);
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        YsbArgs args = YsbArgs.parse("1000", "1", "--out", dir.resolve("ysb.csv").toString());
        boolean ok = YsbReport.verify(new YsbRun.Outcome(args, YsbRows.merge(List.of(rows)), 0, 1, 1, 0), "00",
                new PrintStream(e, true, StandardCharsets.UTF_8));
        assertThat(ok).isTrue();
        assertThat(e.toString(StandardCharsets.UTF_8)).contains("no reference checksum for these parameters; total of views checked");
    }
}
