package air.connectors.files;

import static org.assertj.core.api.Assertions.assertThat;

import air.runtime.source.split.SplitContext;
import air.runtime.source.split.SplitReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One file's reader on its own, without a job: what it emits and refuses, and that a reader
 * reopened at any position it gave goes on exactly where the first one was — the property
 * checkpoints rely on — in a file read once and in a followed file growing under it.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FileLineReaderTest {

    private static final int MAX_LINE = 64;

    @TempDir
    Path dir;

    /** Collects the bad records, as under skip: the reader goes on past them. */
    private static final class Refused implements SplitContext {
        final List<String> origins = new ArrayList<>();

        @Override
        public void badRecord(String origin, byte[] raw, Exception cause) {
            origins.add(origin);
        }

        @Override
        public String sourceName() {
            return "test";
        }
    }

    /** What a run of readers made: the records, and the bad records as {@code !origin}, in order. */
    private static final class Out {
        final List<String> items = new ArrayList<>();
        final Refused refused = new Refused();

        List<String> all() {
            List<String> all = new ArrayList<>(items);
            refused.origins.forEach(o -> all.add("!" + o));
            return all;
        }
    }

    private FileLineReader<String> open(Path file, byte[] position, boolean follow, Refused context) throws IOException {
        long offset = position == null ? 0 : FileLineReader.offsetOf(position);
        long lines = position == null ? 0 : FileLineReader.linesOf(position);
        boolean skipping = position != null && FileLineReader.skippingOf(position);
        return new FileLineReader<>(file, FileSplit.whole(file.getFileName().toString()), LineFormats.lines(), offset, lines, skipping,
                MAX_LINE, follow, context);
    }

    /** Reads the whole of {@code file} (not followed) one record per call, reopening the reader at its position every {@code every} calls. */
    private Out readReopening(Path file, int every) throws IOException {
        Out out = new Out();
        FileLineReader<String> reader = open(file, null, false, out.refused);
        for (int calls = 1; ; calls++) {
            int n = reader.read(1, out.items::add);
            if (n == SplitReader.FINISHED) {
                reader.close();
                return out;
            }
            if (every > 0 && calls % every == 0) {
                byte[] position = reader.position();
                reader.close();
                reader = open(file, position, false, out.refused);
            }
            assertThat(calls).as("the reader ends").isLessThan(100_000);
        }
    }

    /** Lines of every kind: empty, CRLF, not UTF-8, up to and past the bound, the last without a break. */
    private static byte[] randomFile(SplittableRandom random, int lines) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < lines; i++) {
            int kind = random.nextInt(10);
            String text = switch (kind) {
                case 0 -> "";
                case 1 -> "x".repeat(MAX_LINE);
                case 2 -> "y".repeat(MAX_LINE + 1 + random.nextInt(3 * MAX_LINE));
                default -> "line " + i + " " + "z".repeat(random.nextInt(MAX_LINE - 10));
            };
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            if (kind == 3 && bytes.length > 6) {
                bytes[3] = (byte) 0xFE;
            }
            out.writeBytes(bytes);
            if (i < lines - 1 || random.nextBoolean()) {
                out.writeBytes(random.nextInt(3) == 0 ? new byte[] {'\r', '\n'} : new byte[] {'\n'});
            }
        }
        return out.toByteArray();
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
    void a_reader_reopened_at_its_position_goes_on_exactly_where_it_was(int seed) throws IOException {
        Path file = dir.resolve("f" + seed + ".txt");
        Files.write(file, randomFile(new SplittableRandom(seed), 60));
        Out whole = readReopening(file, 0);
        for (int every : new int[] {1, 2, 3, 7}) {
            assertThat(readReopening(file, every).all()).as("reopened every " + every + " reads").isEqualTo(whole.all());
        }
    }

    /** Every split of {@code file} read in ranges of {@code rangeBytes}, in order, each reopened at its position every {@code every} reads. */
    private static Out readRanges(Path file, long rangeBytes, int every) throws IOException {
        FileSplits<String> splits = new FileSplits<>(file, null, LineFormats.lines(), Duration.ZERO, MAX_LINE, rangeBytes);
        Out out = new Out();
        for (String id : splits.discover()) {
            SplitReader<String> reader = splits.open(id, null, out.refused);
            for (int calls = 1; reader.read(1, out.items::add) != SplitReader.FINISHED; calls++) {
                if (every > 0 && calls % every == 0) {
                    byte[] position = reader.position();
                    reader.close();
                    reader = splits.open(id, position, out.refused);
                }
                assertThat(calls).as("the reader of " + id + " ends").isLessThan(100_000);
            }
            reader.close();
        }
        return out;
    }

    /**
     * Read in ranges of any length — one byte, ranges ending inside a line break, inside a line
     * too long and inside the last line — the ranges together emit and refuse exactly what one
     * reader of the whole file does, each reopened at its positions too; a bad line in a range
     * after the first is named by the offset it begins at.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(ints = {21, 22, 23, 24})
    void a_file_read_in_byte_ranges_of_any_length_gives_each_line_once_in_order(int seed) throws IOException {
        Path file = dir.resolve("r" + seed + ".txt");
        byte[] bytes = randomFile(new SplittableRandom(seed), 60);
        Files.write(file, bytes);
        Out whole = readReopening(file, 0);
        List<Long> lineStarts = new ArrayList<>(List.of(0L));
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] == '\n') {
                lineStarts.add(i + 1L);
            }
        }
        assertThat(whole.refused.origins).as("the file has bad lines").isNotEmpty();
        for (long rangeBytes : new long[] {1, 2, 3, 5, 8, 13, MAX_LINE, MAX_LINE + 1, 100, 257, 1000, bytes.length, 1 << 20}) {
            List<String> named = new ArrayList<>();
            for (String origin : whole.refused.origins) {
                long at = lineStarts.get(Integer.parseInt(origin.substring(origin.indexOf(':') + 1)) - 1);
                named.add(at < rangeBytes ? origin : file.getFileName() + "@" + at);
            }
            for (int every : new int[] {0, 1}) {
                Out ranged = readRanges(file, rangeBytes, every);
                assertThat(ranged.items).as("lines in ranges of " + rangeBytes + ", reopened every " + every).isEqualTo(whole.items);
                assertThat(ranged.refused.origins).as("bad lines in ranges of " + rangeBytes + ", reopened every " + every)
                        .isEqualTo(named);
            }
        }
    }

    @Test
    void an_empty_file_in_ranges_is_one_empty_range() throws IOException {
        Path file = dir.resolve("empty.txt");
        Files.write(file, new byte[0]);
        assertThat(new FileSplits<>(file, null, LineFormats.lines(), Duration.ZERO, MAX_LINE, 10).discover())
                .containsExactly("empty.txt#bytes=0-0");
        assertThat(readRanges(file, 10, 0).all()).isEmpty();
    }

    @Test
    void lines_are_counted_across_refused_lines_and_the_last_line_needs_no_break() throws IOException {
        Path file = dir.resolve("c.txt");
        Files.write(file, ("a\r\n" + "b".repeat(MAX_LINE + 1) + "\n\n" + "c".repeat(MAX_LINE) + "\r\n" + "d".repeat(5 * MAX_LINE) + "\r\n"
                + "e\n" + "f".repeat(MAX_LINE + 10)).getBytes(StandardCharsets.UTF_8));
        Out out = readReopening(file, 0);
        assertThat(out.items).containsExactly("a", "", "c".repeat(MAX_LINE), "e");
        assertThat(out.refused.origins).containsExactly("c.txt:2", "c.txt:5", "c.txt:7");
    }

    /**
     * A followed file written a few bytes at a time: a reader that is reopened at its position
     * after every read, whatever it was doing (in a line half written, passing over a long one),
     * emits and refuses what one reader reading it all at once does.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(ints = {11, 12, 13, 14})
    void a_followed_file_reopened_after_every_read_while_it_grows_reads_each_line_once(int seed) throws IOException {
        SplittableRandom random = new SplittableRandom(seed);
        byte[] content = randomFile(random, 40);
        // whatever follows the last line break is never read by a follower: end with one
        ByteArrayOutputStream whole = new ByteArrayOutputStream();
        whole.writeBytes(content);
        whole.writeBytes(new byte[] {'\n'});
        byte[] all = whole.toByteArray();
        Path once = Files.createDirectory(dir.resolve("once")).resolve("grown.txt");
        Files.write(once, all);
        Out expected = readReopening(once, 0);

        Path file = dir.resolve("grown.txt");
        Files.write(file, new byte[0]);
        Out out = new Out();
        byte[] position = null;
        for (int written = 0; written < all.length; ) {
            int chunk = Math.min(all.length - written, 1 + random.nextInt(40));
            Files.write(file, Arrays.copyOfRange(all, written, written + chunk), StandardOpenOption.APPEND);
            written += chunk;
            FileLineReader<String> reader = open(file, position, true, out.refused);
            while (reader.read(1, out.items::add) > 0) {
                // everything there is now
            }
            position = reader.position();
            reader.close();
        }
        assertThat(out.all()).isEqualTo(expected.all());
    }
}
