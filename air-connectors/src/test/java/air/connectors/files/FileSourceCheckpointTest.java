package air.connectors.files;

import static air.connectors.files.FileTestKit.awaitUntil;
import static air.connectors.files.FileTestKit.config;
import static air.connectors.files.FileTestKit.multiset;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.connectors.files.FileTestKit.Held;
import air.connectors.files.FileTestKit.KeptRows;
import air.dsl.Checkpoints;
import air.dsl.Pipeline;
import air.dsl.Sinks;
import air.dsl.Stage;
import air.runtime.Job;
import air.runtime.JobFailedException;
import air.runtime.JobStatus;
import air.runtime.api.BadRecordPolicy;
import air.runtime.api.CheckpointStore;
import air.runtime.api.DeadLetter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The file source under checkpoints: a job that fails after checkpoints were written and is run
 * again from the same checkpoint directory reads every line exactly once (its good lines into a
 * sink that keeps its rows as state, its bad ones into a dead-letter sink that does too); a job
 * stopped with a savepoint resumes on another number of workers; a watched file resumes in the
 * middle of a half-written line, a long one being passed over too.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FileSourceCheckpointTest {

    private static final int MAX_LINE = 200;

    /** One JSON line. */
    public record Row(String file, int line, long value) {
    }

    /** One CSV row. */
    public record Trade(String symbol, int qty, String note) {
    }

    @TempDir
    Path tmp;

    /** What the files hold: the rows of their good lines, the origins of their bad ones and the offsets those begin at. */
    private record Corpus(List<String> good, TreeSet<String> bad, Map<String, Long> offsets) {

        /** The origins of the bad lines as a source reading in ranges of {@code rangeBytes} names them ({@code file@offset} after the first). */
        TreeSet<String> badInRanges(long rangeBytes) {
            TreeSet<String> named = new TreeSet<>();
            for (String origin : bad) {
                long at = offsets.get(origin);
                named.add(at < rangeBytes ? origin : origin.substring(0, origin.indexOf(':')) + "@" + at);
            }
            return named;
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * {@code files} files of a few hundred lines each, in {@code format} (json or csv, each CSV file
     * naming its columns in its own order), LF or CRLF, the last line with or without its break,
     * about one line in 25 bad: malformed, too long, or not UTF-8.
     */
    private static Corpus write(Path dir, String format, int files, long seed) throws IOException {
        Files.createDirectories(dir);
        SplittableRandom random = new SplittableRandom(seed);
        List<String> good = new ArrayList<>();
        TreeSet<String> bad = new TreeSet<>();
        Map<String, Long> offsets = new HashMap<>();
        for (int f = 0; f < files; f++) {
            String name = "part-" + f + "." + format;
            boolean crlf = f % 2 == 0;
            boolean qtyFirst = f % 3 == 0;
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            int n = 300 + random.nextInt(400);
            int line = 0;
            if (format.equals("csv")) {
                out.writeBytes(utf8(qtyFirst ? "qty,note,symbol" : "symbol,qty,note"));
                line++;
            }
            for (int i = 0; i < n; i++) {
                if (line > 0) {
                    out.writeBytes(utf8(crlf ? "\r\n" : "\n"));
                }
                line++;
                String origin = name + ":" + line;
                offsets.put(origin, (long) out.size());
                long value = random.nextLong(1_000_000);
                String text = format.equals("json") ? "{\"file\":\"" + name + "\",\"line\":" + line + ",\"value\":" + value + "}"
                        : qtyFirst ? value + ",\"n, " + line + "\"," + name : name + "," + value + ",\"n, " + line + "\"";
                int dice = random.nextInt(100);
                if (dice < 2) { // JSON cut short, CSV with a column too many
                    out.writeBytes(utf8(format.equals("json") ? text.substring(0, text.length() / 2) + "\"" : text + ",extra"));
                    bad.add(origin);
                } else if (dice < 3) {
                    out.writeBytes(utf8(text + " " + "z".repeat(MAX_LINE)));
                    bad.add(origin);
                } else if (dice < 4) {
                    byte[] raw = utf8(text);
                    raw[raw.length / 2] = (byte) 0xC3; // the start of a two-byte sequence, with no second byte
                    raw[raw.length / 2 + 1] = '(';
                    out.writeBytes(raw);
                    bad.add(origin);
                } else {
                    out.writeBytes(utf8(text));
                    good.add(origin + "=" + value);
                }
            }
            if (f % 3 != 1) {
                out.writeBytes(utf8(crlf ? "\r\n" : "\n"));
            }
            Files.write(dir.resolve(name), out.toByteArray());
        }
        return new Corpus(good, bad, offsets);
    }

    private static String rowOf(Row r) {
        return r.file() + ":" + r.line() + "=" + r.value();
    }

    /** A CSV row as {@code file:line=value}: the file is its symbol, the line at the end of its note. */
    private static String rowOf(Trade t) {
        return t.symbol() + ":" + t.note().substring(3) + "=" + t.qty();
    }

    /**
     * The file source reading {@code dir} in {@code format}, held in each instance after
     * {@code holdAt} rows until {@code release}, as rows {@code file:line=value}; its bad lines go
     * to {@code dead}.
     */
    private static Stage<String> read(Pipeline p, Path dir, String format, long rangeBytes, long holdAt, BooleanSupplier release,
                                      KeptRows<DeadLetter> dead) {
        BadRecordPolicy policy = BadRecordPolicy.deadLetter(dead);
        return format.equals("json")
                ? p.readFrom(new Held<>(ranges(FileSources.jsonLines(dir, Row.class), rangeBytes).maxLineBytes(MAX_LINE).onBadRecord(policy)
                        .glob("*.json"), holdAt, release)).map(FileSourceCheckpointTest::rowOf)
                : p.readFrom(new Held<>(ranges(FileSources.csv(dir, Trade.class), rangeBytes).maxLineBytes(MAX_LINE).onBadRecord(policy)
                        .glob("*.csv"), holdAt, release)).map(FileSourceCheckpointTest::rowOf);
    }

    private static <T> FileSource<T> ranges(FileSource<T> source, long rangeBytes) {
        return rangeBytes > 0 ? source.byteRanges(rangeBytes) : source;
    }

    private static FileSource<Row> json(Path dir) {
        return FileSources.jsonLines(dir, Row.class).maxLineBytes(MAX_LINE).onBadRecord(BadRecordPolicy.skip());
    }

    private static double count(SimpleMeterRegistry registry, String name) {
        Counter c = registry.find(name).counter();
        return c == null ? 0 : c.count();
    }

    /**
     * One run of a job reading {@code data} with checkpoints into {@code store}: with
     * {@code failAfter} > 0 each source instance holds after 200 lines until that many checkpoints
     * were written, and a map then throws once.
     */
    private static void run(Path data, String format, long rangeBytes, CheckpointStore store, KeptRows<String> sink,
                            KeptRows<DeadLetter> dead, int failAfter, SimpleMeterRegistry registry) {
        AtomicBoolean armed = new AtomicBoolean(failAfter > 0);
        Pipeline p = Pipeline.create();
        read(p, data, format, rangeBytes, 200, () -> count(registry, "air.checkpoints") >= failAfter, dead)
                .map(row -> {
                    if (armed.get() && count(registry, "air.checkpoints") >= failAfter && armed.getAndSet(false)) {
                        throw new IllegalStateException("injected failure");
                    }
                    return row;
                })
                .writeTo(sink);
        p.execute(config("files-" + format, 2).checkpoints(store, 20).meterRegistry(registry));
    }

    /** Also with each file read in byte ranges (every range a split of its own, with its own position). */
    @ParameterizedTest(name = "{0}, ranges of {1} bytes")
    @CsvSource({"json,0", "csv,0", "json,1500", "csv,1100"})
    void a_job_that_failed_after_checkpoints_resumes_and_reads_every_line_exactly_once(String format, long rangeBytes)
            throws IOException {
        Path data = tmp.resolve("in");
        Corpus corpus = write(data, format, 8, format.hashCode());
        assertThat(corpus.good().size() + corpus.bad().size()).isGreaterThan(2_500);
        CheckpointStore store = Checkpoints.toDirectory(tmp.resolve("checkpoints"));

        SimpleMeterRegistry first = new SimpleMeterRegistry();
        KeptRows<String> failed = new KeptRows<>(s -> s);
        KeptRows<DeadLetter> failedDead = new KeptRows<>(DeadLetter::origin);
        assertThatThrownBy(() -> run(data, format, rangeBytes, store, failed, failedDead, 2, first)).isInstanceOf(JobFailedException.class)
                .hasMessageContaining("injected failure");
        assertThat(count(first, "air.checkpoints")).isGreaterThanOrEqualTo(2);
        assertThat(failed.size()).as("the first run failed mid-way").isBetween(1, corpus.good().size() - 1);

        SimpleMeterRegistry second = new SimpleMeterRegistry();
        KeptRows<String> sink = new KeptRows<>(s -> s);
        KeptRows<DeadLetter> dead = new KeptRows<>(DeadLetter::origin);
        run(data, format, rangeBytes, store, sink, dead, 0, second);
        assertThat(count(second, "air.recoveries")).as("the second run resumed from a checkpoint").isEqualTo(1);
        assertThat(multiset(sink.rows())).isEqualTo(multiset(corpus.good()));
        assertThat(multiset(dead.rows())).isEqualTo(multiset(rangeBytes > 0 ? corpus.badInRanges(rangeBytes) : corpus.bad()));
    }

    /** The lines of the committed (visible) files in {@code dir}; hidden in-progress and pending files are not read. */
    private static List<String> visibleLines(Path dir) {
        List<String> lines = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return lines;
        }
        try (var files = Files.list(dir)) {
            for (Path f : files.filter(f -> !f.getFileName().toString().startsWith(".")).sorted().toList()) {
                lines.addAll(Files.readAllLines(f));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return lines;
    }

    /**
     * A source's dead letters written to a two-phase-commit sink become visible with each
     * completed checkpoint while the job runs (not only at its end), and once each.
     */
    @Test
    void a_sources_dead_letters_are_committed_with_each_checkpoint_while_the_job_runs() throws Exception {
        Path data = tmp.resolve("in");
        Corpus corpus = write(data, "json", 4, 29);
        Path deadDir = tmp.resolve("dead");
        AtomicBoolean release = new AtomicBoolean();
        Held<Row> held = new Held<>(FileSources.jsonLines(data, Row.class).maxLineBytes(MAX_LINE).glob("*.json")
                .onBadRecord(BadRecordPolicy.deadLetter(Sinks.files(deadDir, DeadLetter::origin))), 300, release::get);
        KeptRows<String> sink = new KeptRows<>(s -> s);
        Pipeline p = Pipeline.create();
        p.readFrom(held).map(FileSourceCheckpointTest::rowOf).writeTo(sink);
        Job job = p.submit(config("dead-letters-committed", 2).checkpoints(Checkpoints.toDirectory(tmp.resolve("checkpoints")), 20));
        try {
            awaitUntil("dead letters committed by a checkpoint while the sources hold", () -> !visibleLines(deadDir).isEmpty(),
                    () -> held.holding.get() + " instance(s) hold, nothing visible in " + deadDir);
            assertThat(job.status()).as("still running").isNotEqualTo(JobStatus.FINISHED);
        } finally {
            release.set(true);
        }
        job.join();
        assertThat(multiset(visibleLines(deadDir))).isEqualTo(multiset(corpus.bad()));
        assertThat(multiset(sink.rows())).isEqualTo(multiset(corpus.good()));
        try (var left = Files.list(deadDir)) {
            assertThat(left.map(f -> f.getFileName().toString()).filter(n -> n.startsWith("."))).as("hidden files left").isEmpty();
        }
    }

    @ParameterizedTest(name = "{0} workers, then {1}")
    @CsvSource({"1,2", "2,1", "2,3"})
    void a_job_stopped_with_a_savepoint_resumes_on_another_number_of_workers_reading_every_line_once(int before, int after)
            throws Exception {
        Path data = tmp.resolve("in");
        Corpus corpus = write(data, "json", 7, 100 * before + after);
        Path checkpoints = tmp.resolve("checkpoints");

        KeptRows<String> stopped = new KeptRows<>(s -> s);
        // the same pipeline in both runs (a checkpoint names each operator after what it is), held in the first
        Held<Row> held = new Held<>(json(data), 300, () -> false);
        Pipeline p = Pipeline.create();
        p.readFrom(held).map(FileSourceCheckpointTest::rowOf).writeTo(stopped);
        Job job = p.submit(config("savepoint", before).checkpoints(Checkpoints.toDirectory(checkpoints), 20));
        try {
            awaitUntil("every source instance holds", () -> held.holding.get() == before, () -> held.holding.get() + " hold");
            stop(job);
        } finally {
            job.cancel();
        }
        assertThat(job.status()).isEqualTo(JobStatus.STOPPED);
        assertThat(stopped.size()).as("rows before the savepoint").isBetween(300, 300 * before);

        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        KeptRows<String> sink = new KeptRows<>(s -> s);
        Pipeline q = Pipeline.create();
        q.readFrom(new Held<>(json(data), 0, () -> true)).map(FileSourceCheckpointTest::rowOf).writeTo(sink);
        q.execute(config("savepoint", after).checkpoints(Checkpoints.toDirectory(checkpoints), 20).meterRegistry(registry));
        assertThat(count(registry, "air.recoveries")).as("resumed from the savepoint").isEqualTo(1);
        assertThat(sink.restoredRescaled.get()).as("writers that took over the earlier layout's rows").isEqualTo(after);
        assertThat(multiset(sink.rows())).isEqualTo(multiset(corpus.good()));
    }

    @Test
    void a_watched_file_resumes_from_a_savepoint_inside_a_half_written_line_and_inside_a_long_line_being_passed_over()
            throws Exception {
        Path data = Files.createDirectories(tmp.resolve("in"));
        Path checkpoints = tmp.resolve("checkpoints");
        Files.write(data.resolve("long.txt"), utf8("one\n" + "x".repeat(MAX_LINE + MAX_LINE / 2)));
        Files.write(data.resolve("half.txt"), utf8("alpha\r\nbe"));

        KeptRows<String> first = new KeptRows<>(s -> s);
        KeptRows<DeadLetter> firstDead = new KeptRows<>(DeadLetter::origin);
        Job job = watched(data, checkpoints, first, firstDead);
        try {
            awaitUntil("the whole lines are read and the long one refused",
                    () -> first.size() == 2 && firstDead.size() == 1, () -> first.rows() + " " + firstDead.rows());
            stop(job);
        } finally {
            job.cancel();
        }
        assertThat(job.status()).isEqualTo(JobStatus.STOPPED);

        Files.write(data.resolve("long.txt"), utf8("yyy\nthree\n"), StandardOpenOption.APPEND);
        Files.write(data.resolve("half.txt"), utf8("ta\r\ngamma\r\n"), StandardOpenOption.APPEND);
        KeptRows<String> second = new KeptRows<>(s -> s);
        KeptRows<DeadLetter> secondDead = new KeptRows<>(DeadLetter::origin);
        Job again = watched(data, checkpoints, second, secondDead);
        try {
            awaitUntil("the appended lines are read", () -> second.rows().contains("gamma") && second.rows().contains("three"),
                    () -> second.rows().toString());
        } finally {
            again.cancel();
            again.join();
        }
        assertThat(multiset(second.rows())).isEqualTo(multiset(List.of("one", "alpha", "beta", "gamma", "three")));
        assertThat(secondDead.rows()).containsExactly("long.txt:2");
    }

    /**
     * Stops {@code job} with a savepoint. The savepoint's future completes only once someone joins
     * the job (its end is run by the joiner), so join first, then read it.
     */
    private static void stop(Job job) {
        CompletableFuture<Long> savepoint = job.stopWithSavepoint();
        job.join();
        assertThat(savepoint).as("the savepoint").isCompletedWithValueMatching(id -> id > 0);
        assertThat(job.status()).isEqualTo(JobStatus.STOPPED);
    }

    private static Job watched(Path data, Path checkpoints, KeptRows<String> sink, KeptRows<DeadLetter> dead) {
        Pipeline p = Pipeline.create();
        p.readFrom(FileSources.lines(data).watching(Duration.ofMillis(20)).maxLineBytes(MAX_LINE)
                .onBadRecord(BadRecordPolicy.deadLetter(dead))).writeTo(sink);
        return p.submit(config("watched", 1).checkpoints(Checkpoints.toDirectory(checkpoints), 20));
    }

    @Test
    void a_csv_file_resumed_past_an_unusable_header_still_refuses_its_lines() throws Exception {
        Path data = Files.createDirectories(tmp.resolve("in"));
        Path checkpoints = tmp.resolve("checkpoints");
        byte[] header = utf8("symbol,qty,note\n");
        header[2] = (byte) 0xFF;
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        file.writeBytes(header);
        file.writeBytes(utf8("AIR,1,x\nBUS,2,y\n"));
        Files.write(data.resolve("t.csv"), file.toByteArray());
        Files.write(data.resolve("u.csv"), utf8("symbol,qty,note\nCAR,3,z\n"));

        KeptRows<String> first = new KeptRows<>(s -> s);
        KeptRows<DeadLetter> firstDead = new KeptRows<>(DeadLetter::origin);
        Job job = watchedCsv(data, checkpoints, first, firstDead);
        try {
            awaitUntil("the first lines are read", () -> first.size() == 1 && firstDead.size() == 3,
                    () -> first.rows() + " " + firstDead.rows());
            stop(job);
        } finally {
            job.cancel();
        }
        Files.write(data.resolve("t.csv"), utf8("DOG,4,w\n"), StandardOpenOption.APPEND);
        Files.write(data.resolve("u.csv"), utf8("EEL,5,v\n"), StandardOpenOption.APPEND);
        KeptRows<String> second = new KeptRows<>(s -> s);
        KeptRows<DeadLetter> secondDead = new KeptRows<>(DeadLetter::origin);
        Job again = watchedCsv(data, checkpoints, second, secondDead);
        try {
            awaitUntil("the appended lines are read", () -> second.size() == 2 && secondDead.size() == 4,
                    () -> second.rows() + " " + secondDead.rows());
        } finally {
            again.cancel();
            again.join();
        }
        assertThat(multiset(second.rows())).isEqualTo(multiset(List.of("CAR", "EEL")));
        assertThat(multiset(secondDead.rows())).isEqualTo(multiset(List.of("t.csv:1", "t.csv:2", "t.csv:3", "t.csv:4")));
    }

    private static Job watchedCsv(Path data, Path checkpoints, KeptRows<String> sink, KeptRows<DeadLetter> dead) {
        Pipeline p = Pipeline.create();
        p.readFrom(FileSources.csv(data, Trade.class).watching(Duration.ofMillis(20)).onBadRecord(BadRecordPolicy.deadLetter(dead)))
                .map(Trade::symbol).writeTo(sink);
        return p.submit(config("watched-csv", 1).checkpoints(Checkpoints.toDirectory(checkpoints), 20));
    }
}
