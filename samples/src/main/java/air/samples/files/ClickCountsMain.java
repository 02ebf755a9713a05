package air.samples.files;

import air.connectors.files.FileSources;
import air.dsl.Aggregations;
import air.dsl.Checkpoints;
import air.dsl.Pipeline;
import air.dsl.Sinks;
import air.dsl.Windows;
import air.runtime.JobConfig;
import air.runtime.api.BadRecordPolicy;
import air.runtime.api.DeadLetter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * {@code clicks [DIR] [--files F] [--lines L] [--bad-every B] [--workers P] [--checkpoints CK]}:
 * a file job end to end. It writes {@code F} files of {@code L} JSON-lines clicks each into
 * {@code DIR/in} (seeded; every {@code B}-th line malformed: cut short, a word where a number
 * goes, bytes that are not UTF-8), then runs a job that reads the directory, counts clicks per
 * page and 10 s window, writes the counts to rolling files in {@code DIR/out} and every bad line,
 * with its {@code file:line} and the error, to rolling files in {@code DIR/bad}. Then it checks
 * the committed files against what it wrote: every count right, every bad line dead-lettered once.
 * Exit 0 when they match, 1 when not, 2 on bad arguments, 3 when the job failed.
 */
public final class ClickCountsMain {

    /** One click: who, which page, when (ms). */
    public record Click(String user, String page, long time) { }

    private static final long WINDOW_MS = 10_000;

    private ClickCountsMain() {
    }

    public static void main(String[] argv) {
        System.exit(execute(argv));
    }

    static int execute(String... argv) {
        Path dir = Path.of("out", "clicks");
        int files = 8;
        int lines = 25_000;
        int badEvery = 997;
        int workers = Runtime.getRuntime().availableProcessors();
        Path checkpoints = null;
        try {
            for (int i = 0; i < argv.length; i++) {
                switch (argv[i]) {
                    case "--files" -> files = positive("--files", argv[++i]);
                    case "--lines" -> lines = positive("--lines", argv[++i]);
                    case "--bad-every" -> badEvery = positive("--bad-every", argv[++i]);
                    case "--workers" -> workers = positive("--workers", argv[++i]);
                    case "--checkpoints" -> checkpoints = Path.of(argv[++i]);
                    case "-h", "--help" -> {
                        System.out.println("usage: ./air clicks [DIR] [--files F] [--lines L] [--bad-every B] [--workers P] "
                                + "[--checkpoints CK]   (defaults: out/clicks, 8 files of 25000 lines, every 997th bad)");
                        return 0;
                    }
                    default -> {
                        if (argv[i].startsWith("-")) {
                            throw new IllegalArgumentException("unknown option " + argv[i]);
                        }
                        dir = Path.of(argv[i]);
                    }
                }
            }
        } catch (ArrayIndexOutOfBoundsException e) {
            System.err.println("clicks: " + argv[argv.length - 1] + " needs a value");
            return 2;
        } catch (IllegalArgumentException e) {
            System.err.println("clicks: " + e.getMessage());
            return 2;
        }
        Expected expected;
        try {
            for (String sub : List.of("in", "out", "bad")) {
                deleteTree(dir.resolve(sub));
            }
            expected = write(dir.resolve("in"), files, lines, badEvery);
        } catch (IOException e) {
            System.err.println("clicks: cannot write the input under " + dir + ": " + e.getMessage());
            return 2;
        }
        Pipeline p = Pipeline.create();
        p.readFrom(FileSources.jsonLines(dir.resolve("in"), Click.class).glob("*.json")
                        .onBadRecord(BadRecordPolicy.deadLetter(Sinks.files(dir.resolve("bad"), DeadLetter::toLine))))
                .withTimestamps(Click::time, 0)
                .keyBy(Click::page)
                .window(Windows.tumbling(WINDOW_MS))
                .aggregate(Aggregations.count())
                .writeTo(Sinks.files(dir.resolve("out"), r -> r.key() + "," + r.start() + "," + r.value()));
        JobConfig config = JobConfig.defaults().name("clicks").workers(workers);
        if (checkpoints != null) {
            config = config.checkpoints(Checkpoints.toDirectory(checkpoints), 1_000);
        }
        long t0 = System.nanoTime();
        try {
            p.execute(config);
        } catch (RuntimeException e) {
            System.err.println("clicks: the job failed: " + e.getMessage());
            return 3;
        }
        double s = (System.nanoTime() - t0) / 1e9;
        return check(dir, expected, s);
    }

    private static int positive(String option, String text) {
        try {
            int v = Integer.parseInt(text);
            if (v > 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException(option + " must be a positive whole number, got '" + text + "'");
    }

    /** What the input holds: the counts per "page,windowStart", and the origin (file:line) of every bad line. */
    record Expected(Map<String, Long> counts, Set<String> bad, long lines) { }

    /** Writes the input files, each in event-time order; returns what the job must find. */
    static Expected write(Path in, int files, int lines, int badEvery) throws IOException {
        Files.createDirectories(in);
        SplittableRandom random = new SplittableRandom(7);
        Map<String, Long> counts = new TreeMap<>();
        Set<String> bad = new TreeSet<>();
        for (int f = 0; f < files; f++) {
            String name = String.format(Locale.ROOT, "clicks-%03d.json", f);
            List<byte[]> out = new ArrayList<>(lines);
            long time = 0;
            for (int l = 1; l <= lines; l++) {
                time += random.nextInt(20);
                String page = "page-" + random.nextInt(16);
                String user = "user-" + random.nextInt(1_000);
                if (l % badEvery == 0) {
                    bad.add(name + ":" + l);
                    out.add(switch (random.nextInt(3)) {
                        case 0 -> ("{\"user\":\"" + user + "\",\"page\":\"" + page + "\",\"ti").getBytes(StandardCharsets.UTF_8);
                        case 1 -> ("{\"user\":\"" + user + "\",\"page\":\"" + page + "\",\"time\":\"soon\"}").getBytes(StandardCharsets.UTF_8);
                        default -> new byte[] {'{', '"', (byte) 0xC3, (byte) 0x28, '"', '}'};
                    });
                    continue;
                }
                out.add(("{\"user\":\"" + user + "\",\"page\":\"" + page + "\",\"time\":" + time + "}").getBytes(StandardCharsets.UTF_8));
                counts.merge(page + "," + (time / WINDOW_MS * WINDOW_MS), 1L, Long::sum);
            }
            try (var w = Files.newOutputStream(in.resolve(name))) {
                for (byte[] line : out) {
                    w.write(line);
                    w.write('\n');
                }
            }
        }
        return new Expected(counts, bad, (long) files * lines);
    }

    /** Compares the committed output and dead letters with what was written: the exit code. */
    static int check(Path dir, Expected expected, double seconds) {
        Map<String, Long> counts = new TreeMap<>();
        for (String row : committedLines(dir.resolve("out"))) {
            int comma = row.lastIndexOf(',');
            if (counts.put(row.substring(0, comma), Long.parseLong(row.substring(comma + 1))) != null) {
                System.err.println("clicks: MISMATCH: the window " + row.substring(0, comma) + " is in the output twice");
                return 1;
            }
        }
        List<String> origins = new ArrayList<>();
        for (String line : committedLines(dir.resolve("bad"))) {
            origins.add(line.substring(0, line.indexOf('\t')));
        }
        Set<String> distinct = new TreeSet<>(origins);
        long good = expected.counts().values().stream().mapToLong(Long::longValue).sum();
        System.out.printf(Locale.ROOT, "CLICKS lines=%d good=%d bad=%d windows=%d dead_letters=%d seconds=%.3f out=%s bad=%s%n",
                expected.lines(), good, expected.bad().size(), counts.size(), origins.size(), seconds, dir.resolve("out"),
                dir.resolve("bad"));
        boolean ok = true;
        if (!counts.equals(expected.counts())) {
            System.err.println("clicks: MISMATCH: the counts differ from the input's (" + counts.size() + " windows against "
                    + expected.counts().size() + ")");
            ok = false;
        }
        if (origins.size() != distinct.size() || !distinct.equals(expected.bad())) {
            System.err.println("clicks: MISMATCH: " + origins.size() + " dead letters (" + distinct.size() + " lines) for the "
                    + expected.bad().size() + " bad lines written");
            ok = false;
        }
        if (ok) {
            System.err.println("clicks: every count right, every bad line dead-lettered once with its file:line");
        }
        return ok ? 0 : 1;
    }

    /** The lines of the committed (visible) part files of a rolling sink's directory. */
    static List<String> committedLines(Path dir) {
        List<String> all = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return all;
        }
        try (Stream<Path> parts = Files.list(dir)) {
            for (Path part : parts.filter(f -> f.getFileName().toString().startsWith("part-")).sorted().toList()) {
                all.addAll(Files.readAllLines(part, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return all;
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted((a, b) -> b.compareTo(a)).toList()) {
                Files.delete(p);
            }
        }
    }
}
