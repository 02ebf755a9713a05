package air.samples.ysb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.workloads.ysb.YsbEvent;
import air.workloads.ysb.YsbGenerator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checker behind {@code CHECK lost= dup=}: the engine's own output passes, and every kind of bad
 * output is caught, counted as lost or duplicated views or refused as not canonical.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class YsbOutputCheckTest {

    /** 3 windows of 100 000 events at R = 10 000: 300 rows. */
    private static final String[] YSB = {"300K", "2", "--rate", "10000"};
    /** 2 windows of 100 000 events, about 95 000 user keys each. */
    private static final String[] USERS = {"200K", "2", "--rate", "10000", "--query", "users"};
    /** YSBM over 3 windows at R = 10 000: 300 rows of clicks and views per campaign. */
    private static final String[] YSBM = {"300K", "2", "--rate", "10000", "--query", "ysbm"};
    /** WA over 3 windows and a part of a fourth. */
    private static final String[] WA = {"350K", "2", "--rate", "10000", "--query", "wa"};
    /** The word count over 2 windows of 100 000 sentences. */
    private static final String[] WORDS = {"200K", "2", "--rate", "10000", "--query", "wordcount"};
    /** The enrichment over 2 windows: about two names per campaign and window. */
    private static final String[] ENRICH = {"200K", "2", "--rate", "10000", "--query", "enrich"};

    @TempDir
    static Path dir;
    private static List<String> ysbRows;
    private static List<String> userRows;
    private static List<String> ysbmRows;
    private static List<String> waRows;
    private static List<String> wordRows;
    private static List<String> enrichRows;

    @BeforeAll
    static void runTheEngine() throws IOException {
        ysbRows = engineOutput(YSB, "ysb.csv");
        userRows = engineOutput(USERS, "users.csv");
        ysbmRows = engineOutput(YSBM, "ysbm.csv");
        waRows = engineOutput(WA, "wa.csv");
        wordRows = engineOutput(WORDS, "words.csv");
        enrichRows = engineOutput(ENRICH, "enrich.csv");
    }

    private static List<String> engineOutput(String[] argv, String name) throws IOException {
        Path out = dir.resolve(name);
        YsbRun.run(YsbArgs.parse(argv), null).rows().writeCanonical(out);
        return Files.readAllLines(out, StandardCharsets.US_ASCII);
    }

    private static YsbOutputCheck.Outcome check(List<String> rows, String[] argv) throws IOException {
        return checkBytes((String.join("\n", rows) + "\n").getBytes(StandardCharsets.US_ASCII), argv);
    }

    private static int file;

    private static YsbOutputCheck.Outcome checkBytes(byte[] bytes, String[] argv) throws IOException {
        Path f = Files.write(dir.resolve("case-" + file++ + ".csv"), bytes);
        try {
            return YsbOutputCheck.check(f, YsbArgs.parse(argv));
        } finally {
            Files.delete(f);
        }
    }

    private static long countOf(String row) {
        return Long.parseLong(row.substring(row.lastIndexOf(',') + 1));
    }

    private static String withCount(String row, long count) {
        return row.substring(0, row.lastIndexOf(',') + 1) + count;
    }

    private static List<String> ysb() {
        return new ArrayList<>(ysbRows);
    }

    private static List<String> users() {
        return new ArrayList<>(userRows);
    }

    @Test
    void the_engines_output_passes() throws IOException {
        assertThat(ysbRows).hasSize(300);
        assertThat(check(ysb(), YSB)).isEqualTo(new YsbOutputCheck.Outcome(0, 0, 300));
        assertThat(check(users(), USERS)).isEqualTo(new YsbOutputCheck.Outcome(0, 0, userRows.size()));
    }

    @Test
    void a_missing_row_is_lost() throws IOException {
        List<String> rows = ysb();
        String gone = rows.remove(150);
        assertThat(check(rows, YSB)).isEqualTo(new YsbOutputCheck.Outcome(countOf(gone), 0, 299));

        List<String> u = users();
        String userGone = u.remove(u.size() / 2);
        assertThat(check(u, USERS)).isEqualTo(new YsbOutputCheck.Outcome(countOf(userGone), 0, u.size()));
    }

    @Test
    void a_missing_window_is_lost() throws IOException {
        List<String> rows = ysb();
        List<String> last = rows.subList(200, 300);
        long views = last.stream().mapToLong(YsbOutputCheckTest::countOf).sum();
        last.clear();
        assertThat(check(rows, YSB)).isEqualTo(new YsbOutputCheck.Outcome(views, 0, 200));
    }

    @Test
    void an_empty_file_loses_everything() throws IOException {
        long views = ysbRows.stream().mapToLong(YsbOutputCheckTest::countOf).sum();
        assertThat(checkBytes(new byte[0], YSB)).isEqualTo(new YsbOutputCheck.Outcome(views, 0, 0));
    }

    @Test
    void a_doubled_row_is_duplicated() throws IOException {
        List<String> rows = ysb();
        rows.add(42, rows.get(42));
        assertThat(check(rows, YSB)).isEqualTo(new YsbOutputCheck.Outcome(0, countOf(rows.get(42)), 301));

        List<String> u = users();
        u.add(7, u.get(7));
        assertThat(check(u, USERS)).isEqualTo(new YsbOutputCheck.Outcome(0, countOf(u.get(7)), u.size()));
    }

    @Test
    void a_window_emitted_twice_in_two_rows_that_add_up_is_duplicated() throws IOException {
        List<String> rows = ysb();
        String row = rows.get(10);
        long n = countOf(row);
        rows.set(10, withCount(row, n - 100));
        rows.add(11, withCount(row, 100));
        assertThat(check(rows, YSB)).isEqualTo(new YsbOutputCheck.Outcome(0, 100, 301));
    }

    @Test
    void a_wrong_count_is_lost_or_duplicated() throws IOException {
        List<String> rows = ysb();
        rows.set(99, withCount(rows.get(99), countOf(rows.get(99)) + 1));
        assertThat(check(rows, YSB)).isEqualTo(new YsbOutputCheck.Outcome(0, 1, 300));

        rows = ysb();
        rows.set(99, withCount(rows.get(99), countOf(rows.get(99)) - 3));
        assertThat(check(rows, YSB)).isEqualTo(new YsbOutputCheck.Outcome(3, 0, 300));

        rows = ysb(); // two counts swapped: the total is right, two rows are not
        long a = countOf(rows.get(0));
        long b = countOf(rows.get(1));
        assertThat(a).isNotEqualTo(b);
        rows.set(0, withCount(rows.get(0), b));
        rows.set(1, withCount(rows.get(1), a));
        assertThat(check(rows, YSB)).isEqualTo(new YsbOutputCheck.Outcome(Math.abs(a - b), Math.abs(a - b), 300));

        List<String> u = users();
        u.set(5, withCount(u.get(5), countOf(u.get(5)) + 2));
        assertThat(check(u, USERS)).isEqualTo(new YsbOutputCheck.Outcome(0, 2, u.size()));
    }

    @Test
    void rows_the_loop_does_not_have_are_duplicated() throws IOException {
        List<String> rows = ysb(); // a campaign id that is in no window (greatest unsigned: last of window 0)
        rows.add(100, YsbGenerator.T0 + ",ffffffffffffffff,5");
        assertThat(check(rows, YSB)).isEqualTo(new YsbOutputCheck.Outcome(0, 5, 301));

        rows = ysb(); // a window after the last one
        rows.add(rows.get(0).replace(Long.toString(YsbGenerator.T0), Long.toString(YsbGenerator.T0 + 3 * YsbGenerator.WINDOW_MS)));
        assertThat(check(rows, YSB)).isEqualTo(new YsbOutputCheck.Outcome(0, countOf(rows.get(0)), 301));
    }

    @Test
    void a_user_key_outside_the_key_space_does_not_pass_for_the_next_window() throws IOException {
        // window 1's row for key k moved to window 0 as key 2^20 + k: packed as index * 2^20 + key, they were the same
        List<String> u = users();
        String second = YsbGenerator.T0 + YsbGenerator.WINDOW_MS + ",";
        int i = 0;
        while (!u.get(i).startsWith(second)) {
            i++;
        }
        String moved = u.remove(i);
        long key = Long.parseUnsignedLong(moved.split(",")[1], 16);
        u.add(i, YsbGenerator.T0 + "," + YsbEvent.hex(YsbArgs.Query.USER_KEYS + key) + "," + countOf(moved));
        assertThat(check(u, USERS)).isEqualTo(new YsbOutputCheck.Outcome(countOf(moved), countOf(moved), u.size()));
    }

    @Test
    void output_that_is_not_canonical_is_refused_with_the_line() throws IOException {
        List<String> swapped = ysb();
        swapped.set(3, ysbRows.get(4));
        swapped.set(4, ysbRows.get(3));
        assertRefused(swapped, ":5: ", "out of the canonical order");

        List<String> upper = ysb();
        upper.set(8, upper.get(8).toUpperCase(Locale.ROOT));
        assertRefused(upper, ":9: ", "16 lowercase hex digits");

        for (String count : new String[] {"+5", "05", "5.0", " 5", "x"}) {
            List<String> rows = ysb();
            rows.set(2, withCount(rows.get(2), 0).replaceFirst("0$", count));
            assertRefused(rows, ":3: ", "not a plain decimal number");
        }

        List<String> zero = ysb(); // a row of count 0 for a key the loop lacks changes no sum
        zero.add(100, YsbGenerator.T0 + ",ffffffffffffffff,0");
        assertRefused(zero, ":101: ", "count 0");

        List<String> misaligned = ysb();
        misaligned.set(299, misaligned.get(299).replaceFirst("^(\\d+)", Long.toString(YsbGenerator.T0 + 2 * YsbGenerator.WINDOW_MS + 5)));
        assertRefused(misaligned, ":300: ", "is not T0 + k * 10000 ms");

        List<String> short_ = ysb();
        short_.set(0, short_.get(0).substring(0, short_.get(0).lastIndexOf(',')));
        assertRefused(short_, ":1: ", "not a row");

        String text = String.join("\n", ysbRows) + "\n";
        assertThatThrownBy(() -> checkBytes(text.replace("\n", "\r\n").getBytes(StandardCharsets.US_ASCII), YSB))
                .hasMessageContaining(":1: not canonical output: a carriage return");
        assertThatThrownBy(() -> checkBytes(text.substring(0, text.length() - 1).getBytes(StandardCharsets.US_ASCII), YSB))
                .hasMessageContaining(":300: not canonical output: the last row has no \\n");
        assertThatThrownBy(() -> checkBytes((text + "\n").getBytes(StandardCharsets.US_ASCII), YSB))
                .hasMessageContaining(":301: not canonical output: not a row ''");
    }

    @Test
    void ysbm_output_passes_and_its_bad_rows_are_caught_in_either_count_or_the_ratio() throws IOException {
        assertThat(ysbmRows).hasSize(300);
        assertThat(check(new ArrayList<>(ysbmRows), YSBM)).isEqualTo(new YsbOutputCheck.Outcome(0, 0, 300));

        List<String> rows = new ArrayList<>(ysbmRows);
        String[] f = rows.remove(17).split(",");
        long events = Long.parseLong(f[2]) + Long.parseLong(f[3]);
        assertThat(check(rows, YSBM)).as("a missing join row loses its clicks and views").isEqualTo(new YsbOutputCheck.Outcome(events, 0, 299));

        rows = new ArrayList<>(ysbmRows);
        rows.add(5, rows.get(5));
        String[] d = rows.get(5).split(",");
        assertThat(check(rows, YSBM)).isEqualTo(new YsbOutputCheck.Outcome(0, Long.parseLong(d[2]) + Long.parseLong(d[3]), 301));

        rows = new ArrayList<>(ysbmRows); // clicks one too many, ratio made to agree: only the count can tell
        String[] g = rows.get(40).split(",");
        long clicks = Long.parseLong(g[2]) + 1;
        long views = Long.parseLong(g[3]);
        rows.set(40, g[0] + "," + g[1] + "," + clicks + "," + views + "," + (clicks * 1_000_000 / views));
        assertThat(check(rows, YSBM)).isEqualTo(new YsbOutputCheck.Outcome(0, 1, 300));

        List<String> ratio = new ArrayList<>(ysbmRows);
        String[] r = ratio.get(3).split(",");
        ratio.set(3, r[0] + "," + r[1] + "," + r[2] + "," + r[3] + "," + (Long.parseLong(r[4]) + 1));
        assertThatThrownBy(() -> check(ratio, YSBM)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(":4: not canonical output: ratio_ppm");

        List<String> ysbShaped = new ArrayList<>(ysbRows);
        assertThatThrownBy(() -> check(ysbShaped, YSBM)).hasMessageContaining(":1: not canonical output: not a row");
    }

    @Test
    void wa_output_passes_and_a_missing_doubled_or_wrong_window_is_caught() throws IOException {
        assertThat(waRows).containsExactly(YsbGenerator.T0 + ",100000", (YsbGenerator.T0 + 10_000) + ",100000",
                (YsbGenerator.T0 + 20_000) + ",100000", (YsbGenerator.T0 + 30_000) + ",50000");
        assertThat(check(new ArrayList<>(waRows), WA)).isEqualTo(new YsbOutputCheck.Outcome(0, 0, 4));

        List<String> rows = new ArrayList<>(waRows);
        rows.remove(3);
        assertThat(check(rows, WA)).isEqualTo(new YsbOutputCheck.Outcome(50_000, 0, 3));

        rows = new ArrayList<>(waRows);
        rows.add(1, rows.get(1));
        assertThat(check(rows, WA)).isEqualTo(new YsbOutputCheck.Outcome(0, 100_000, 5));

        rows = new ArrayList<>(waRows);
        rows.set(0, withCount(rows.get(0), 99_999));
        assertThat(check(rows, WA)).isEqualTo(new YsbOutputCheck.Outcome(1, 0, 4));

        List<String> swapped = new ArrayList<>(waRows);
        swapped.set(0, waRows.get(1));
        swapped.set(1, waRows.get(0));
        assertThatThrownBy(() -> check(swapped, WA)).hasMessageContaining(":2: not canonical output: out of the canonical order");
    }

    @Test
    void word_count_output_passes_and_a_wrong_or_unknown_word_is_caught() throws IOException {
        assertThat(check(new ArrayList<>(wordRows), WORDS)).isEqualTo(new YsbOutputCheck.Outcome(0, 0, wordRows.size()));

        List<String> rows = new ArrayList<>(wordRows);
        rows.set(10, withCount(rows.get(10), countOf(rows.get(10)) + 7));
        assertThat(check(rows, WORDS)).isEqualTo(new YsbOutputCheck.Outcome(0, 7, wordRows.size()));

        List<String> unknown = new ArrayList<>(wordRows);
        String[] f = unknown.get(0).split(",");
        unknown.set(0, f[0] + ",zzzz," + f[2]);
        assertThatThrownBy(() -> check(unknown, WORDS)).hasMessageContaining(":1: not canonical output: 'zzzz' is not a word");
    }

    @Test
    void enrichment_output_passes_and_views_counted_under_the_wrong_name_version_are_caught() throws IOException {
        assertThat(check(new ArrayList<>(enrichRows), ENRICH)).isEqualTo(new YsbOutputCheck.Outcome(0, 0, enrichRows.size()));

        // what a lookup as of arrival could do: a window's views of one campaign all under one version
        List<String> rows = new ArrayList<>(enrichRows);
        int i = 0;
        while (!rows.get(i).split(",")[1].equals(rows.get(i + 1).split(",")[1])) {
            i++;
        }
        long moved = countOf(rows.get(i + 1));
        String[] first = rows.get(i).split(",");
        rows.set(i, first[0] + "," + first[1] + "," + first[2] + "," + (Long.parseLong(first[3]) + moved));
        rows.remove(i + 1);
        assertThat(check(rows, ENRICH)).isEqualTo(new YsbOutputCheck.Outcome(moved, moved, enrichRows.size() - 1));
    }

    private static void assertRefused(List<String> rows, String line, String why) {
        assertThatThrownBy(() -> check(rows, YSB)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(line + "not canonical output: ").hasMessageContaining(why);
    }
}
