package air.connectors.files;

import static air.connectors.files.FileTestKit.assertNoDuplicates;
import static air.connectors.files.FileTestKit.awaitUntil;
import static air.connectors.files.FileTestKit.badRecords;
import static air.connectors.files.FileTestKit.config;
import static air.connectors.files.FileTestKit.dropIn;
import static air.connectors.files.FileTestKit.joinWithin;
import static air.connectors.files.FileTestKit.multiset;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.dsl.Pipeline;
import air.dsl.Sinks;
import air.runtime.Job;
import air.runtime.JobFailedException;
import air.runtime.JobStatus;
import air.runtime.api.BadRecordPolicy;
import air.runtime.api.DeadLetter;
import air.runtime.api.SinkFactory;
import air.runtime.api.SinkWriter;
import air.runtime.sink.CollectSink;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The file source end to end, through a job: each format from a file and from a directory, what
 * a directory listing leaves out, every bad-record policy on every kind of bad line, a directory
 * spread over several instances, and a watched directory taking new files and appended lines.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FileSourceTest {

    /** The bound on a line in the tests that refuse long ones: small, so that long lines are cheap. */
    private static final int MAX_LINE = 256;

    /** One JSON line. */
    public record Row(String file, int line, long value) {
    }

    /** One CSV row. */
    public record Trade(String symbol, int qty, String note) {
    }

    @TempDir
    Path dir;

    // ---------------------------------------------------------------- test data

    /** How a line of a generated file is to be taken. */
    private enum Kind { GOOD, BAD, BLANK }

    /**
     * Generated files and what the source must make of them: the rows of the good lines, and the
     * raw bytes of the bad ones, by origin ({@code name:line}).
     */
    private static final class Corpus {
        final List<String> good = new ArrayList<>();
        final Map<String, byte[]> bad = new TreeMap<>();
        final Map<String, String> badWhy = new TreeMap<>();
        final Set<String> blank = new TreeSet<>();
        final Set<String> all = new TreeSet<>();

        void add(String origin, Kind kind, String row, byte[] raw, String why) {
            all.add(origin);
            switch (kind) {
                case GOOD -> good.add(row);
                case BAD -> {
                    bad.put(origin, raw);
                    badWhy.put(origin, why);
                }
                case BLANK -> blank.add(origin);
            }
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The lines joined by {@code "\n"} or {@code "\r\n"}, the last one with its line break or without. */
    private static byte[] join(List<byte[]> lines, boolean crlf, boolean lastBreak) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < lines.size(); i++) {
            out.writeBytes(lines.get(i));
            if (i < lines.size() - 1 || lastBreak) {
                out.writeBytes(crlf ? new byte[] {'\r', '\n'} : new byte[] {'\n'});
            }
        }
        return out.toByteArray();
    }

    private static String jsonRow(String file, int line, long value) {
        return "{\"file\":\"" + file + "\",\"line\":" + line + ",\"value\":" + value + "}";
    }

    /**
     * A JSON-lines file of {@code n} lines into {@code corpus}: good rows, blank lines and, with
     * {@code badRate} > 0, every kind of bad line — malformed, unknown field, wrong type, not UTF-8,
     * longer than {@link #MAX_LINE}.
     */
    private static void jsonFile(Path dir, String name, int n, SplittableRandom random, double badRate, boolean crlf, boolean lastBreak,
                                 Corpus corpus) throws IOException {
        List<byte[]> lines = new ArrayList<>(n);
        for (int line = 1; line <= n; line++) {
            String origin = name + ":" + line;
            long value = random.nextLong(1_000_000);
            double dice = random.nextDouble();
            if (dice < 0.04) {
                byte[] raw = utf8(random.nextBoolean() ? "" : "  \t ");
                lines.add(raw);
                corpus.add(origin, Kind.BLANK, null, raw, null);
            } else if (dice < 0.04 + badRate) {
                int which = random.nextInt(5);
                byte[] raw = switch (which) {
                    case 0 -> utf8(jsonRow(name, line, value).substring(0, 20)); // cut short
                    case 1 -> utf8("{\"file\":\"" + name + "\",\"line\":" + line + ",\"colour\":\"red\"}"); // unknown field
                    case 2 -> utf8("{\"file\":\"" + name + "\",\"line\":\"line " + line + "\",\"value\":1}"); // wrong type
                    case 3 -> notUtf8(jsonRow(name, line, value));
                    default -> utf8(jsonRow(name, line, value).replace("}", ",\"pad\":\"" + "x".repeat(MAX_LINE + random.nextInt(3 * MAX_LINE))
                            + "\"}"));
                };
                lines.add(raw);
                corpus.add(origin, Kind.BAD, null, raw, switch (which) {
                    case 3 -> "not UTF-8";
                    case 4 -> "maxLineBytes";
                    default -> "Exception";
                });
            } else {
                byte[] raw = utf8(jsonRow(name, line, value));
                lines.add(raw);
                corpus.add(origin, Kind.GOOD, origin + "=" + value, raw, null);
            }
        }
        Files.write(dir.resolve(name), join(lines, crlf, lastBreak));
    }

    /** {@code text} with a byte that is never UTF-8 (0xFF) in its middle. */
    private static byte[] notUtf8(String text) {
        byte[] good = utf8(text);
        byte[] raw = new byte[good.length + 1];
        int at = good.length / 2;
        System.arraycopy(good, 0, raw, 0, at);
        raw[at] = (byte) 0xFF;
        System.arraycopy(good, at, raw, at + 1, good.length - at);
        return raw;
    }

    /** A directory of JSON-lines files with bad lines of every kind; line breaks, last line breaks and sizes vary per file. */
    private Corpus jsonDirectory(long seed, int files, double badRate) throws IOException {
        SplittableRandom random = new SplittableRandom(seed);
        Corpus corpus = new Corpus();
        for (int f = 0; f < files; f++) {
            jsonFile(dir, "events-" + f + ".json", 50 + random.nextInt(150), random, badRate, f % 2 == 1, f % 3 != 2, corpus);
        }
        return corpus;
    }

    private static String rowOf(Row r) {
        return r.file() + ":" + r.line() + "=" + r.value();
    }

    // ---------------------------------------------------------------- formats, files and directories

    @Test
    void the_lines_of_one_file_come_out_as_written_with_crlf_blank_lines_and_a_last_line_without_a_break() throws IOException {
        Path file = dir.resolve("notes.txt");
        Files.write(file, utf8("first\r\nsecond\n\n  spaced  \r\n\r\nünïcödé ✓\nlast without a break"));
        CollectSink<String> sink = Sinks.collect();
        Pipeline p = Pipeline.create();
        p.readFrom(FileSources.lines(file)).writeTo(sink);
        p.execute(config("lines-one", 1));
        assertThat(sink.items()).containsExactly("first", "second", "", "  spaced  ", "", "ünïcödé ✓", "last without a break");
    }

    @Test
    void an_empty_file_and_an_empty_directory_give_nothing_and_end() throws IOException {
        Path empty = Files.createDirectory(dir.resolve("empty"));
        Files.write(dir.resolve("empty.txt"), new byte[0]);
        for (Path path : List.of(empty, dir.resolve("empty.txt"))) {
            CollectSink<String> sink = Sinks.collect();
            Pipeline p = Pipeline.create();
            p.readFrom(FileSources.lines(path)).writeTo(sink);
            p.execute(config("empty", 2));
            assertThat(sink.items()).as(path.toString()).isEmpty();
        }
    }

    @Test
    void a_path_that_does_not_exist_fails_the_job_naming_it() {
        Path missing = dir.resolve("no-such-dir");
        Pipeline p = Pipeline.create();
        p.readFrom(FileSources.lines(missing)).writeTo(Sinks.collect());
        assertThatThrownBy(() -> p.execute(config("missing", 1))).isInstanceOf(JobFailedException.class)
                .hasMessageContaining("no-such-dir");
    }

    @Test
    void a_directory_is_read_whole_leaving_out_hidden_files_in_progress_files_and_subdirectories() throws IOException {
        SplittableRandom random = new SplittableRandom(11);
        List<String> expected = new ArrayList<>();
        for (int f = 0; f < 5; f++) {
            List<byte[]> lines = new ArrayList<>();
            for (int i = 0, n = 20 + random.nextInt(80); i < n; i++) {
                String line = "f" + f + " line " + i + " " + random.nextInt(1000);
                lines.add(utf8(line));
                expected.add(line);
            }
            Files.write(dir.resolve("part-" + f + ".txt"), join(lines, f % 2 == 0, f != 3));
        }
        Files.write(dir.resolve(".hidden.txt"), utf8("hidden\n"));
        Files.write(dir.resolve("part-9.txt.inprogress"), utf8("in progress\n"));
        Path sub = Files.createDirectory(dir.resolve("sub"));
        Files.write(sub.resolve("nested.txt"), utf8("nested\n"));

        CollectSink<String> sink = Sinks.collect();
        Pipeline p = Pipeline.create();
        p.readFrom(FileSources.lines(dir)).writeTo(sink);
        p.execute(config("lines-dir", 2));
        assertThat(multiset(sink.items())).isEqualTo(multiset(expected));
    }

    @Test
    void a_glob_keeps_only_the_files_whose_names_match() throws IOException {
        Files.write(dir.resolve("a.json"), utf8("a1\na2\n"));
        Files.write(dir.resolve("b.json"), utf8("b1\n"));
        Files.write(dir.resolve("b.json.bak"), utf8("backup\n"));
        Files.write(dir.resolve("c.log"), utf8("log\n"));
        Files.write(dir.resolve("part-7"), utf8("p7\n"));

        CollectSink<String> json = Sinks.collect();
        Pipeline p = Pipeline.create();
        p.readFrom(FileSources.lines(dir).glob("*.json")).writeTo(json);
        p.execute(config("glob-json", 2));
        assertThat(multiset(json.items())).isEqualTo(multiset(List.of("a1", "a2", "b1")));

        CollectSink<String> parts = Sinks.collect();
        Pipeline q = Pipeline.create();
        q.readFrom(FileSources.lines(dir).glob("{part-*,c.*}")).writeTo(parts);
        q.execute(config("glob-parts", 1));
        assertThat(multiset(parts.items())).isEqualTo(multiset(List.of("p7", "log")));

        assertThatThrownBy(() -> FileSources.lines(dir).glob("[unclosed")).isInstanceOf(RuntimeException.class)
                .hasMessageContaining("[unclosed");
    }

    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {1, 2})
    void json_lines_map_onto_a_record_from_one_file_and_from_a_directory(int workers) throws IOException {
        Corpus corpus = jsonDirectory(21 + workers, 4, 0);
        CollectSink<String> fromDir = Sinks.collect();
        Pipeline p = Pipeline.create();
        p.readFrom(FileSources.jsonLines(dir, Row.class)).map(FileSourceTest::rowOf).writeTo(fromDir);
        p.execute(config("json-dir", workers));
        assertThat(multiset(fromDir.items())).isEqualTo(multiset(corpus.good));

        CollectSink<String> fromFile = Sinks.collect();
        Pipeline q = Pipeline.create();
        q.readFrom(FileSources.jsonLines(dir.resolve("events-1.json"), Row.class)).map(FileSourceTest::rowOf).writeTo(fromFile);
        q.execute(config("json-file", workers));
        assertThat(multiset(fromFile.items()))
                .isEqualTo(multiset(corpus.good.stream().filter(row -> row.startsWith("events-1.json:")).toList()));
    }

    @Test
    void a_json_line_with_anything_after_its_document_is_a_bad_record_not_a_silently_shortened_one() throws IOException {
        // two records run together (a line break lost), and a record with junk after it: neither may pass as its first record
        Files.write(dir.resolve("t.json"), utf8(jsonRow("t.json", 1, 1) + jsonRow("t.json", 1, 2) + "\n" + jsonRow("t.json", 2, 3)
                + " junk\n" + jsonRow("t.json", 3, 4) + "  \nnull\n"));
        CollectSink<DeadLetter> dead = Sinks.collect();
        CollectSink<String> sink = Sinks.collect();
        Pipeline p = Pipeline.create();
        p.readFrom(FileSources.jsonLines(dir, Row.class).onBadRecord(BadRecordPolicy.deadLetter(dead))).map(FileSourceTest::rowOf)
                .writeTo(sink);
        p.execute(config("json-trailing", 1));
        assertThat(sink.items()).containsExactly("t.json:3=4");
        assertThat(dead.items()).extracting(DeadLetter::origin).containsExactly("t.json:1", "t.json:2", "t.json:4");
    }

    @Test
    void csv_maps_columns_by_the_header_of_each_file_onto_a_record() throws IOException {
        // the second file names its columns in another order; quoted fields may hold the separator
        Files.write(dir.resolve("a.csv"), utf8("symbol,qty,note\r\nAIR,10,plain\r\nBUS,-3,\"buy, then hold\"\r\n\r\nCAR,0,\r\n"));
        Files.write(dir.resolve("b.csv"), utf8("note,symbol,qty\n\"said \"\"hi\"\"\",DOG,7\nlast,EEL,8"));
        Files.write(dir.resolve("c.csv"), utf8("symbol,qty,note\n")); // a header only
        List<String> expected = List.of("AIR/10/plain", "BUS/-3/buy, then hold", "CAR/0/", "DOG/7/said \"hi\"", "EEL/8/last");

        CollectSink<String> fromDir = Sinks.collect();
        Pipeline p = Pipeline.create();
        p.readFrom(FileSources.csv(dir, Trade.class)).map(t -> t.symbol() + "/" + t.qty() + "/" + t.note()).writeTo(fromDir);
        p.execute(config("csv-dir", 2));
        assertThat(multiset(fromDir.items())).isEqualTo(multiset(expected));

        CollectSink<String> fromFile = Sinks.collect();
        Pipeline q = Pipeline.create();
        q.readFrom(FileSources.csv(dir.resolve("b.csv"), Trade.class)).map(t -> t.symbol() + "/" + t.qty() + "/" + t.note())
                .writeTo(fromFile);
        q.execute(config("csv-file", 1));
        assertThat(fromFile.items()).containsExactly("DOG/7/said \"hi\"", "EEL/8/last");
    }

    @Test
    void csv_lines_with_the_wrong_number_of_columns_or_bad_values_are_bad_records_named_by_line() throws IOException {
        Files.write(dir.resolve("t.csv"), utf8("symbol,qty,note\nAIR,1,ok\nBUS,2\nCAR,three,x\nDOG,4,ok,extra\nEEL,5,ok\n"));
        CollectSink<DeadLetter> dead = Sinks.collect();
        CollectSink<String> sink = Sinks.collect();
        Pipeline p = Pipeline.create();
        p.readFrom(FileSources.csv(dir, Trade.class).onBadRecord(BadRecordPolicy.deadLetter(dead))).map(Trade::symbol).writeTo(sink);
        p.execute(config("csv-bad", 1));
        assertThat(sink.items()).containsExactly("AIR", "EEL");
        assertThat(dead.items()).extracting(DeadLetter::origin).containsExactly("t.csv:3", "t.csv:4", "t.csv:5");
        assertThat(dead.items()).extracting(DeadLetter::rawText).containsExactly("BUS,2", "CAR,three,x", "DOG,4,ok,extra");
        assertThat(dead.items().get(0).error()).contains("2 columns where the header names 3");
    }

    @Test
    void a_csv_header_that_cannot_be_used_makes_every_line_of_its_file_a_bad_record() throws IOException {
        // a header that is not UTF-8, one that is too long, and one naming a blank column: none may take the next line as header
        Files.write(dir.resolve("a.csv"), join(List.of(notUtf8("symbol,qty,note"), utf8("AIR,1,x"), utf8("BUS,2,y")), false, true));
        Files.write(dir.resolve("b.csv"), join(List.of(utf8("symbol,qty,note," + "n".repeat(MAX_LINE)), utf8("CAR,3,z")), true, true));
        Files.write(dir.resolve("c.csv"), join(List.of(utf8("symbol,,note"), utf8("DOG,4,w")), false, false));
        Files.write(dir.resolve("d.csv"), join(List.of(utf8("symbol,qty,note"), utf8("EEL,5,v")), false, true));
        CollectSink<DeadLetter> dead = Sinks.collect();
        CollectSink<String> sink = Sinks.collect();
        Pipeline p = Pipeline.create();
        p.readFrom(FileSources.csv(dir, Trade.class).maxLineBytes(MAX_LINE).onBadRecord(BadRecordPolicy.deadLetter(dead)))
                .map(Trade::symbol).writeTo(sink);
        p.execute(config("csv-header", 2));
        assertThat(sink.items()).containsExactly("EEL");
        assertThat(dead.items()).extracting(DeadLetter::origin)
                .containsExactlyInAnyOrder("a.csv:1", "a.csv:2", "a.csv:3", "b.csv:1", "b.csv:2", "c.csv:2");
        assertThat(dead.items()).filteredOn(d -> !d.origin().endsWith(":1")).allSatisfy(d -> assertThat(d.error())
                .contains("its header cannot be used"));
    }

    // ---------------------------------------------------------------- bad records

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"malformed", "not-utf8", "too-long", "too-long-last-without-break"})
    void under_fail_a_bad_line_fails_the_job_naming_its_file_and_line(String kind) throws IOException {
        SplittableRandom random = new SplittableRandom(kind.hashCode());
        boolean last = kind.endsWith("without-break");
        int n = 40;
        int badAt = last ? n : 2 + random.nextInt(n - 2);
        List<byte[]> lines = new ArrayList<>();
        for (int line = 1; line <= n; line++) {
            String good = jsonRow("x.json", line, line);
            lines.add(line == badAt ? switch (kind) {
                case "malformed" -> utf8(good.substring(0, good.length() - 1));
                case "not-utf8" -> notUtf8(good);
                default -> utf8(good.replace("}", ",\"pad\":\"" + "y".repeat(2 * MAX_LINE) + "\"}"));
            } : line % 7 == 0 ? new byte[0] : utf8(good));
        }
        Files.write(dir.resolve("x.json"), join(lines, true, !last));
        Files.write(dir.resolve("y.json"), utf8(jsonRow("y.json", 1, 1) + "\n"));

        Pipeline p = Pipeline.create();
        p.readFrom(FileSources.jsonLines(dir, Row.class).maxLineBytes(MAX_LINE)).map(FileSourceTest::rowOf).writeTo(Sinks.collect());
        assertThatThrownBy(() -> p.execute(config("fail-" + kind, 2)))
                .isInstanceOf(JobFailedException.class)
                .satisfies(e -> {
                    Matcher m = Pattern.compile("x\\.json:(\\d+)").matcher(e.getMessage());
                    assertThat(m.find()).as("the message names the line: " + e.getMessage()).isTrue();
                    assertThat(Integer.parseInt(m.group(1))).as(e.getMessage()).isEqualTo(badAt);
                    assertThat(e.getMessage()).contains(switch (kind) {
                        case "malformed" -> "Exception";
                        case "not-utf8" -> "not UTF-8";
                        default -> "maxLineBytes";
                    });
                });
    }

    @Test
    void under_skip_the_good_lines_come_out_and_the_meter_counts_every_bad_one() throws IOException {
        Corpus corpus = jsonDirectory(31, 6, 0.15);
        assertThat(corpus.bad).hasSizeGreaterThan(20);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CollectSink<String> sink = Sinks.collect();
        Pipeline p = Pipeline.create();
        p.readFrom(FileSources.jsonLines(dir, Row.class).maxLineBytes(MAX_LINE).onBadRecord(BadRecordPolicy.skip()))
                .map(FileSourceTest::rowOf).writeTo(sink);
        p.execute(config("skip", 2).meterRegistry(registry));
        assertThat(multiset(sink.items())).isEqualTo(multiset(corpus.good));
        assertThat(badRecords(registry, "skip", "skip")).isEqualTo(corpus.bad.size());
        List<Counter> counters = registry.find("air.records.bad").counters().stream().toList();
        assertThat(counters).as("one meter for the source stage, shared by its instances").hasSize(1);
        assertThat(counters.get(0).getId().getTag("operator")).as("the operator tag").isNotBlank();
    }

    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {1, 2})
    void under_dead_letter_every_bad_line_arrives_with_its_origin_raw_bytes_and_error(int workers) throws IOException {
        Corpus corpus = jsonDirectory(41 + workers, 5, 0.2);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CollectSink<DeadLetter> dead = Sinks.collect();
        CollectSink<String> sink = Sinks.collect();
        Pipeline p = Pipeline.create();
        p.readFrom(FileSources.jsonLines(dir, Row.class).maxLineBytes(MAX_LINE).onBadRecord(BadRecordPolicy.deadLetter(dead)))
                .map(FileSourceTest::rowOf).writeTo(sink);
        p.execute(config("dead", workers).meterRegistry(registry));

        assertThat(multiset(sink.items())).isEqualTo(multiset(corpus.good));
        Map<String, DeadLetter> letters = new TreeMap<>();
        for (DeadLetter d : dead.items()) {
            assertThat(letters.put(d.origin(), d)).as("dead-lettered twice: " + d.origin()).isNull();
        }
        assertThat(letters.keySet()).isEqualTo(corpus.bad.keySet());
        for (DeadLetter d : letters.values()) {
            byte[] raw = corpus.bad.get(d.origin());
            String why = corpus.badWhy.get(d.origin());
            assertThat(d.error()).as(d.origin()).contains(why);
            assertThat(d.operator()).as(d.origin()).isNotBlank();
            if (why.equals("maxLineBytes")) { // the first KiB at most, of the line as written
                assertThat(d.raw().length).as(d.origin()).isBetween(MAX_LINE, 1024);
                assertThat(raw).as(d.origin()).startsWith(d.raw());
            } else {
                assertThat(d.raw()).as(d.origin()).isEqualTo(raw);
            }
        }
        assertThat(badRecords(registry, "dead", "dead-letter")).isEqualTo(corpus.bad.size());

        // good + bad + blank = every line, each once
        Set<String> accounted = new HashSet<>(corpus.blank);
        accounted.addAll(letters.keySet());
        for (String row : sink.items()) {
            assertThat(accounted.add(row.substring(0, row.indexOf('=')))).as("line twice: " + row).isTrue();
        }
        assertThat(accounted).isEqualTo(corpus.all);
    }

    @Test
    void lines_up_to_the_bound_are_read_with_either_line_break_and_longer_ones_are_refused() throws IOException {
        int max = 100_000; // beyond the reader's first 64 KiB buffer: it has to grow
        List<byte[]> lines = List.of(utf8("a".repeat(max - 1)), utf8("b".repeat(max)), utf8("c".repeat(max + 1)),
                utf8("short"), utf8("d".repeat(5 * max)), utf8("e".repeat(max)), utf8("tail"));
        Files.write(dir.resolve("lf.txt"), join(lines, false, true));
        Files.write(dir.resolve("crlf.txt"), join(lines, true, true));
        CollectSink<DeadLetter> dead = Sinks.collect();
        CollectSink<String> sink = Sinks.collect();
        Pipeline p = Pipeline.create();
        p.readFrom(FileSources.lines(dir).maxLineBytes(max).onBadRecord(BadRecordPolicy.deadLetter(dead)))
                .map(s -> s.charAt(0) + ":" + s.length()).writeTo(sink);
        p.execute(config("long-lines", 2));
        List<String> good = List.of("a:" + (max - 1), "b:" + max, "s:5", "e:" + max, "t:4");
        List<String> expected = new ArrayList<>(good);
        expected.addAll(good);
        assertThat(multiset(sink.items())).isEqualTo(multiset(expected));
        assertThat(dead.items()).extracting(DeadLetter::origin)
                .containsExactlyInAnyOrder("lf.txt:3", "lf.txt:5", "crlf.txt:3", "crlf.txt:5");
        assertThat(dead.items()).allSatisfy(d -> assertThat(d.raw()).hasSize(1024));
    }

    @Test
    void a_refused_long_last_line_without_a_line_break_ends_the_read() throws IOException {
        Files.write(dir.resolve("z.txt"), utf8("one\ntwo\n" + "z".repeat(MAX_LINE + MAX_LINE / 2)));
        CollectSink<DeadLetter> dead = Sinks.collect();
        CollectSink<String> sink = Sinks.collect();
        Pipeline p = Pipeline.create();
        p.readFrom(FileSources.lines(dir).maxLineBytes(MAX_LINE).onBadRecord(BadRecordPolicy.deadLetter(dead))).writeTo(sink);
        Job job = p.submit(config("long-last", 1));
        joinWithin(job, "the job reads its file and ends");
        assertThat(job.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(sink.items()).containsExactly("one", "two");
        assertThat(dead.items()).extracting(DeadLetter::origin).containsExactly("z.txt:3");
    }

    // ---------------------------------------------------------------- several instances

    /** Rows tagged with the instance of the sink that wrote them (the source's, fused into one chain). */
    private static final class ByInstance implements SinkFactory<String> {
        final Queue<String> rows = new ConcurrentLinkedQueue<>();

        @Override
        public SinkWriter<String> open(int instance, int parallelism) {
            return new SinkWriter<>() {
                @Override
                public void write(String item) {
                    rows.add(instance + "|" + item);
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public String describe() {
            return "by instance";
        }

        /** The instances that wrote each file's lines (a line is {@code file/...}). */
        Map<String, Set<String>> readersByFile() {
            Map<String, Set<String>> readers = new TreeMap<>();
            for (String r : rows) {
                String file = r.substring(r.indexOf('|') + 1, r.indexOf('/'));
                readers.computeIfAbsent(file, k -> new TreeSet<>()).add(r.substring(0, r.indexOf('|')));
            }
            return readers;
        }
    }

    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {2, 3})
    void a_directory_spread_over_several_instances_gives_each_line_once_each_file_read_by_one(int workers) throws IOException {
        SplittableRandom random = new SplittableRandom(51);
        List<String> expected = new ArrayList<>();
        for (int f = 0; f < 12; f++) {
            List<byte[]> lines = new ArrayList<>();
            for (int i = 0, n = 200 + random.nextInt(200); i < n; i++) {
                String line = "file" + f + "/" + i;
                lines.add(utf8(line));
                expected.add(line);
            }
            Files.write(dir.resolve("in-" + f + ".txt"), join(lines, false, true));
        }
        ByInstance sink = new ByInstance();
        Pipeline p = Pipeline.create();
        p.readFrom(FileSources.lines(dir)).writeTo(sink);
        p.execute(config("spread", workers));

        List<String> lines = sink.rows.stream().map(r -> r.substring(r.indexOf('|') + 1)).toList();
        assertThat(multiset(lines)).isEqualTo(multiset(expected));
        Map<String, Set<String>> readers = sink.readersByFile();
        assertThat(readers).as("the instances that read each file").allSatisfy((file, by) -> assertThat(by).hasSize(1));
        assertThat(readers.values().stream().flatMap(Set::stream).distinct().count()).as("instances that read files").isGreaterThan(1);
    }

    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {2, 3})
    void a_few_large_files_read_in_byte_ranges_are_shared_by_the_instances_each_line_once(int workers) throws IOException {
        SplittableRandom random = new SplittableRandom(61 + workers);
        List<String> expected = new ArrayList<>();
        for (int f = 0; f < 2; f++) {
            List<byte[]> lines = new ArrayList<>();
            for (int i = 0, n = 3000 + random.nextInt(1000); i < n; i++) {
                String line = "file" + f + "/" + i + " " + "x".repeat(random.nextInt(40));
                lines.add(utf8(line));
                expected.add(line);
            }
            Files.write(dir.resolve("big-" + f + ".txt"), join(lines, f == 1, f == 0));
        }
        ByInstance sink = new ByInstance();
        Pipeline p = Pipeline.create();
        p.readFrom(FileSources.lines(dir).byteRanges(4096)).writeTo(sink);
        p.execute(config("ranges", workers));

        List<String> lines = sink.rows.stream().map(r -> r.substring(r.indexOf('|') + 1)).toList();
        assertThat(multiset(lines)).isEqualTo(multiset(expected));
        Map<String, Set<String>> readers = sink.readersByFile();
        assertThat(readers).as("the instances that read each file").hasSize(2).allSatisfy((file, by) -> assertThat(by).hasSize(workers));
    }

    // ---------------------------------------------------------------- watching

    @Test
    void a_watched_directory_reads_new_files_and_appended_lines_each_once() throws IOException {
        List<String> expected = new ArrayList<>();
        for (String name : List.of("a.txt", "b.txt")) {
            List<byte[]> lines = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                lines.add(utf8(name + "/" + i));
                expected.add(name + "/" + i);
            }
            Files.write(dir.resolve(name), join(lines, name.equals("b.txt"), true));
        }
        Queue<String> got = new ConcurrentLinkedQueue<>();
        Pipeline p = Pipeline.create();
        p.readFrom(FileSources.lines(dir).watching(Duration.ofMillis(50))).writeTo(Sinks.callback(got::add));
        Job job = p.submit(config("watch", 2));
        try {
            awaitUntil("the first files are read", () -> got.size() >= expected.size(), () -> got.size() + " rows");

            // a new file, written under a hidden name and moved in whole
            List<byte[]> c = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                c.add(utf8("c.txt/" + i));
                expected.add("c.txt/" + i);
            }
            dropIn(dir, "c.txt", join(c, false, true));
            // a file written by a file sink: in progress, then renamed
            Files.write(dir.resolve("d.txt.inprogress"), utf8("d.txt/0\nd.txt/1\n"));
            expected.addAll(List.of("d.txt/0", "d.txt/1"));
            Files.move(dir.resolve("d.txt.inprogress"), dir.resolve("d.txt"));
            // lines appended to a file being read, the last one half written
            StringBuilder more = new StringBuilder();
            for (int i = 100; i < 150; i++) {
                more.append("a.txt/").append(i).append('\n');
                expected.add("a.txt/" + i);
            }
            Files.write(dir.resolve("a.txt"), utf8(more + "a.txt/half"), StandardOpenOption.APPEND);
            Files.write(dir.resolve("b.txt"), utf8("b.txt/100\r\n"), StandardOpenOption.APPEND);
            expected.add("b.txt/100");
            awaitUntil("the new file and the appended lines are read", () -> got.size() >= expected.size(),
                    () -> got.size() + " of " + expected.size() + " rows");

            // the half-written line, once whole
            Files.write(dir.resolve("a.txt"), utf8("-written\n"), StandardOpenOption.APPEND);
            expected.add("a.txt/half-written");
            awaitUntil("the line completed is read", () -> got.size() >= expected.size(),
                    () -> got.size() + " of " + expected.size() + " rows");
            assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
        } finally {
            job.cancel();
            job.join();
        }
        List<String> rows = List.copyOf(got);
        assertNoDuplicates(rows);
        assertThat(multiset(rows)).isEqualTo(multiset(expected));
    }

    @Test
    void bad_settings_are_refused_and_good_ones_show_in_the_description() {
        assertThatThrownBy(() -> FileSources.lines(Path.of("x")).watching(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FileSources.lines(Path.of("x")).maxLineBytes(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> FileSources.lines(Path.of("x")).byteRanges(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(".byteRanges(bytes): must be positive");
        assertThatThrownBy(() -> FileSources.lines(Path.of("x")).byteRanges(10).watching(Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(".watching(interval)").hasMessageContaining("byteRanges");
        assertThatThrownBy(() -> FileSources.lines(Path.of("x")).watching(Duration.ofSeconds(1)).byteRanges(10))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(".byteRanges(bytes)").hasMessageContaining("watched");
        assertThat(FileSources.lines(dir).byteRanges(4096).describe()).contains("in ranges of 4096 bytes");
        assertThat(FileSources.jsonLines(dir, Row.class).glob("*.json").watching(Duration.ofSeconds(1)).describe())
                .contains(dir.toString(), "*.json", "json(Row)", "watched");
    }
}
