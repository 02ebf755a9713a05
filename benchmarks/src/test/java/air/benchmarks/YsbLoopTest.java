package air.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import air.samples.ysb.YsbArgs;
import air.samples.ysb.YsbRun;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The loop's canonical output, which the benchmark scripts hold every engine run to where YSB-SPEC has no reference. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class YsbLoopTest {

    private record Run(int exit, String out, String err) { }

    private static Run loop(String... argv) throws Exception {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int exit = YsbLoop.run(YsbArgs.parse(argv), new PrintStream(o, true, StandardCharsets.UTF_8),
                new PrintStream(e, true, StandardCharsets.UTF_8));
        return new Run(exit, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    }

    @Test
    void five_million_events_match_the_reference_checksum(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("loop.csv");
        Run r = loop("5M", "--out", out.toString());
        assertThat(r.exit()).isZero();
        assertThat(r.err()).contains("ysb-loop: checksum matches the reference (YSB-SPEC 6.3)");
        assertThat(r.out()).startsWith("RESULT engine=loop p=1 ")
                .contains(" windows=5 rows=500 views=1667184 sha256=918c079abd661bab8445c17beef6f9bfdec2492356713c80f4c1895a67855871 ");
        assertThat(Files.readAllLines(out)).hasSize(500).startsWith("1700000000000,016b5b652c36c774,3407",
                "1700000000000,068f8b5f729724f5,3322");
    }

    @Test
    void without_a_reference_it_says_so(@TempDir Path dir) throws Exception {
        Run r = loop("300K", "--rate", "10000", "--out", dir.resolve("loop.csv").toString());
        assertThat(r.exit()).isZero();
        assertThat(r.err()).contains("ysb-loop: no reference checksum for these parameters");
    }

    @Test
    void its_output_is_byte_identical_to_the_engines(@TempDir Path dir) throws Exception {
        for (String[] argv : new String[][] {{"300K", "--rate", "10000"}, {"1234567", "--seed", "-7"},
                                             {"200K", "--rate", "10000", "--query", "users"}}) {
            Path loop = dir.resolve("loop.csv");
            Path engine = dir.resolve("engine.csv");
            String[] withOut = Stream.concat(Arrays.stream(argv), Stream.of("--out", loop.toString()))
                    .toArray(String[]::new);
            assertThat(loop(withOut).exit()).isZero();
            String[] engineArgs = Stream.concat(Stream.of(argv[0], "2"),
                    Arrays.stream(argv).skip(1)).toArray(String[]::new);
            String sha = YsbRun.run(YsbArgs.parse(engineArgs), null).rows().writeCanonical(engine);
            assertThat(Files.mismatch(loop, engine)).as(String.join(" ", argv)).isEqualTo(-1L);
            assertThat(Files.size(loop)).isPositive();
            assertThat(sha).hasSize(64);
        }
    }
}
