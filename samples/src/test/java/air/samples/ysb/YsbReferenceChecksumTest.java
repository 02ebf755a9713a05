package air.samples.ysb;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** YSB-mem through the engine is byte-identical to the spec's reference output (YSB-SPEC 6.3). */
class YsbReferenceChecksumTest {

    @ParameterizedTest(name = "workers={0} routing={1} progress={2}")
    @CsvSource({"1,KEY,watermark", "2,KEY,watermark", "4,KEY,watermark", "1,AIR,watermark", "2,AIR,watermark", "4,AIR,watermark",
                "1,AIR,hewmeld", "2,AIR,hewmeld", "4,AIR,hewmeld", "2,KEY,hewmeld", "4,KEY,hewmeld"})
    void five_million_events_match_the_reference_checksum(int workers, String routing, String progress, @TempDir Path dir)
            throws Exception {
        Path out = dir.resolve("ysb.csv");
        YsbArgs args = YsbArgs.parse("5M", Integer.toString(workers), "--out", out.toString(), "--routing", routing,
                "--progress", progress);
        YsbRun.Outcome outcome = YsbRun.run(args, null);
        String sha = outcome.rows().writeCanonical(out);
        assertThat(outcome.rows().views()).isEqualTo(1_667_184);
        assertThat(outcome.rows().size()).isEqualTo(500);
        assertThat(outcome.rows().windows()).isEqualTo(5);
        assertThat(sha).isEqualTo("918c079abd661bab8445c17beef6f9bfdec2492356713c80f4c1895a67855871");
        assertThat(Files.readAllLines(out).get(0)).isEqualTo("1700000000000,016b5b652c36c774,3407");
        assertThat(Files.readAllLines(out).get(1)).isEqualTo("1700000000000,068f8b5f729724f5,3322");
    }

    /** YSBM (YSB-SPEC 9) and WA (10): two branches and a window join, and an unkeyed window, byte-identical to the spec. */
    @ParameterizedTest(name = "query={0} workers={1} routing={2} progress={3}")
    @CsvSource({"ysbm,1,KEY,watermark", "ysbm,2,AIR,hewmeld", "ysbm,4,KEY,hewmeld", "ysbm,4,AIR,watermark", "ysbm,2,KEY,watermark",
                "wa,1,KEY,watermark", "wa,2,AIR,hewmeld", "wa,4,KEY,hewmeld", "wa,4,AIR,watermark", "wa,2,AIR,watermark"})
    void ysbm_and_wa_match_their_reference_checksums(String query, int workers, String routing, String progress, @TempDir Path dir)
            throws Exception {
        Path out = dir.resolve(query + ".csv");
        YsbArgs args = YsbArgs.parse("5M", Integer.toString(workers), "--query", query, "--out", out.toString(), "--routing", routing,
                "--progress", progress);
        YsbRun.Outcome outcome = YsbRun.run(args, null);
        String sha = outcome.rows().writeCanonical(out);
        if (query.equals("ysbm")) {
            assertThat(outcome.rows().size()).isEqualTo(500);
            assertThat(sha).isEqualTo("1bd40d73c8984fa8a105d5e36b279f4333c9b26b78730f4d6549cd55618f4dca");
            assertThat(Files.readAllLines(out).subList(0, 2)).containsExactly("1700000000000,016b5b652c36c774,3395,3407,996477",
                    "1700000000000,068f8b5f729724f5,3385,3322,1018964");
        } else {
            assertThat(outcome.rows().size()).isEqualTo(5);
            assertThat(outcome.rows().views()).isEqualTo(5_000_000);
            assertThat(sha).isEqualTo("597154556dd081f2db0e222936e6767a05db29570bb8034c3e8b5d423c237ea2");
        }
        assertThat(YsbReport.verify(outcome, sha, new PrintStream(OutputStream.nullOutputStream()))).isTrue();
    }

    /** The word count and the enrichment against the checksums of docs/dataflows.md, which their plain loops gave. */
    @ParameterizedTest(name = "query={0} workers={1} routing={2} progress={3}")
    @CsvSource({"wordcount,1M,1,KEY,watermark", "wordcount,1M,3,AIR,hewmeld", "enrich,5M,1,KEY,hewmeld", "enrich,5M,2,AIR,watermark"})
    void the_word_count_and_the_enrichment_match_their_references(String query, String n, int workers, String routing, String progress,
                                                                 @TempDir Path dir) throws Exception {
        Path out = dir.resolve(query + ".csv");
        YsbArgs args = YsbArgs.parse(n, Integer.toString(workers), "--query", query, "--out", out.toString(), "--routing", routing,
                "--progress", progress);
        YsbRun.Outcome outcome = YsbRun.run(args, null);
        String sha = outcome.rows().writeCanonical(out);
        assertThat(sha).isEqualTo(YsbReference.sha256(args.query(), args.n(), 42, 100_000));
        assertThat(YsbReport.verify(outcome, sha, new PrintStream(OutputStream.nullOutputStream()))).isTrue();
        if (query.equals("enrich")) {
            assertThat(Files.readAllLines(out)).contains("1700000000000,016b5b652c36c774,0,3371", "1700000000000,016b5b652c36c774,1,36");
        }
    }
}
