package air.samples.ysb;

import air.workloads.words.SentenceGenerator;
import air.workloads.ysb.CampaignRenames;
import air.workloads.ysb.YsbEvent;
import air.workloads.ysb.YsbGenerator;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.collections.impl.map.mutable.primitive.LongIntHashMap;
import org.eclipse.collections.impl.map.mutable.primitive.LongLongHashMap;
import org.eclipse.collections.impl.map.mutable.primitive.LongObjectHashMap;

/**
 * Compares a canonical output file of a query over the YSB events with what a plain loop over
 * the generator gives.
 *
 * <p>Counts are summed per (window, key) and per count column over the file's rows (YSBM rows
 * have two, clicks and views): events the loop has beyond what the file sums to are <b>lost</b>;
 * events the file sums to beyond the loop's are <b>duplicated</b>, and so is every row whose
 * (window, key) an earlier row already had (a window emitted twice, even split so that the two
 * rows add up). Both are 0 only when the file holds exactly the loop's rows.
 *
 * <p>A file that is not canonical is refused with an {@link IllegalStateException} naming the
 * file and line: a row not of the query's shape ({@code <window_start>,<16 lowercase hex
 * digits>,<count>} for YSB, {@code ...,<clicks>,<views>,<ratio_ppm>} for YSBM,
 * {@code <window_start>,<count>} for WA) in plain decimal, a count that is not positive, a ratio
 * that is not {@code floor(clicks * 10^6 / views)}, a window start that is not {@code T0 + k * 10 s},
 * rows out of the canonical order, a {@code \r}, or a last row without its {@code \n}. So a file
 * that passes with {@code lost=0 dup=0} is byte for byte the loop's canonical file.
 */
final class YsbOutputCheck {

    /** Lost and duplicated events, and the rows compared. */
    record Outcome(long lost, long duplicated, long rows) { }

    private YsbOutputCheck() {
    }

    static Outcome check(Path canonical, YsbArgs args) {
        return switch (args.query()) {
            case USERS -> compare(canonical, YsbRows.Shape.COUNTS, List.of(expectedUsers(args.n(), args.seed(), args.rate())));
            case YSB, PROCESS -> compare(canonical, YsbRows.Shape.COUNTS, List.of(expectedCounts(args.n(), args.seed(), args.rate())));
            case YSBM -> compare(canonical, YsbRows.Shape.RATIOS, expectedJoin(args.n(), args.seed(), args.rate()));
            case WA -> compare(canonical, YsbRows.Shape.TOTALS, List.of(expectedTotals(args.n(), args.seed(), args.rate())));
            case WORDCOUNT -> compare(canonical, YsbRows.Shape.WORDS, List.of(expectedWords(args.n(), args.seed(), args.rate())));
            case ENRICH -> compare(canonical, YsbRows.Shape.NAMED, List.of(expectedNamed(args.n(), args.seed(), args.rate())));
            case SESSIONS -> SessionsCheck.compare(canonical, SessionsLoop.rows(args));
        };
    }

    /** A YSB-shaped file against expected counts per window index, then key. */
    static Outcome compare(Path canonical, LongObjectHashMap<LongLongHashMap> expected) {
        return compare(canonical, YsbRows.Shape.COUNTS, List.of(expected));
    }

    /** The file against expected counts per column, per window index, then key (0 for WA's rows). */
    static Outcome compare(Path canonical, YsbRows.Shape shape, List<LongObjectHashMap<LongLongHashMap>> expected) {
        int columns = shape == YsbRows.Shape.RATIOS ? 2 : 1;
        int fields = switch (shape) {
            case COUNTS, WORDS -> 3;
            case RATIOS -> 5;
            case TOTALS -> 2;
            case NAMED -> 4;
            case SESSIONS -> throw new IllegalArgumentException("sessions files are compared by SessionsCheck");
        };
        List<LongObjectHashMap<LongLongHashMap>> seen = new ArrayList<>();
        for (int c = 0; c < columns; c++) {
            seen.add(new LongObjectHashMap<>());
        }
        long repeated = 0;
        long rows = 0;
        long lastWindow = Long.MIN_VALUE;
        long lastKey = 0;
        long lastMinor = 0;
        try (InputStream in = new BufferedInputStream(Files.newInputStream(canonical), 1 << 16)) {
            StringBuilder line = new StringBuilder(64);
            int b;
            boolean open = false;
            while ((b = in.read()) >= 0) {
                if (b != '\n') {
                    if (b == '\r') {
                        throw notCanonical(canonical, rows + 1, "a carriage return (rows end with \\n only)");
                    }
                    line.append((char) b);
                    open = true;
                    continue;
                }
                rows++;
                open = false;
                String text = line.toString();
                line.setLength(0);
                String[] f = text.split(",", -1);
                if (f.length != fields) {
                    throw notCanonical(canonical, rows, "not a row '" + text + "' (" + fields + " fields)");
                }
                long window = decimal(canonical, rows, f[0], "window start");
                long key = switch (shape) {
                    case TOTALS -> 0;
                    case WORDS -> word(canonical, rows, f[1]);
                    default -> hexKey(canonical, rows, f[1]);
                };
                long minor = shape == YsbRows.Shape.NAMED ? decimal(canonical, rows, f[2], "name version") : 0;
                long[] counts = new long[columns];
                for (int c = 0; c < columns; c++) {
                    int field = switch (shape) {
                        case TOTALS -> 1;
                        case NAMED -> 3;
                        default -> 2 + c;
                    };
                    counts[c] = decimal(canonical, rows, f[field], "count");
                    if (counts[c] <= 0) {
                        throw notCanonical(canonical, rows, "count " + counts[c] + " (rows have counts > 0)");
                    }
                }
                if (shape == YsbRows.Shape.RATIOS && decimal(canonical, rows, f[4], "ratio_ppm") != YsbRows.ratioPpm(counts[0], counts[1])) {
                    throw notCanonical(canonical, rows, "ratio_ppm " + f[4] + " is not floor(" + counts[0] + " * 1000000 / " + counts[1] + ")");
                }
                if (window < YsbGenerator.T0 || (window - YsbGenerator.T0) % YsbGenerator.WINDOW_MS != 0) {
                    throw notCanonical(canonical, rows, "window start " + window + " is not T0 + k * " + YsbGenerator.WINDOW_MS + " ms");
                }
                int order = window != lastWindow ? Long.compare(window, lastWindow)
                        : key != lastKey ? Long.compareUnsigned(key, lastKey) : Long.compare(minor, lastMinor);
                if (rows > 1 && order < 0) {
                    throw notCanonical(canonical, rows, "out of the canonical order (by window, then key unsigned): '" + text
                            + "' after the row of window " + lastWindow);
                }
                lastWindow = window;
                lastKey = key;
                lastMinor = minor;
                long mapKey = shape == YsbRows.Shape.NAMED ? namedKey(canonical, rows, key, minor) : key;
                for (int c = 0; c < columns; c++) {
                    LongLongHashMap byKey = seen.get(c).getIfAbsentPut(windowIndex(window), LongLongHashMap::new);
                    if (byKey.containsKey(mapKey)) {
                        repeated += counts[c];
                    }
                    byKey.addToValue(mapKey, counts[c]);
                }
            }
            if (open) {
                throw notCanonical(canonical, rows + 1, "the last row has no \\n");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + canonical, e);
        }
        long lost = 0;
        long extra = 0;
        for (int c = 0; c < columns; c++) {
            lost += beyond(expected.get(c), seen.get(c));
            extra += beyond(seen.get(c), expected.get(c));
        }
        return new Outcome(lost, Math.max(repeated, extra), rows);
    }

    /** What {@code a} counts beyond {@code b}, summed over every (window, key). */
    private static long beyond(LongObjectHashMap<LongLongHashMap> a, LongObjectHashMap<LongLongHashMap> b) {
        long[] sum = {0};
        a.forEachKeyValue((w, counts) -> {
            LongLongHashMap other = b.get(w);
            counts.forEachKeyValue((k, v) -> sum[0] += Math.max(0, v - (other == null ? 0 : other.get(k))));
        });
        return sum[0];
    }

    private static long windowIndex(long windowStart) {
        return (windowStart - YsbGenerator.T0) / YsbGenerator.WINDOW_MS;
    }

    /** A field that must be a plain decimal number, or a refusal naming the file, row and field. Also read by {@link SessionsCheck}. */
    static long decimal(Path file, long row, String text, String what) {
        try {
            long v = Long.parseLong(text);
            if (Long.toString(v).equals(text)) {
                return v;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw notCanonical(file, row, what + " '" + text + "' is not a plain decimal number");
    }

    private static long hexKey(Path file, long row, String text) {
        return hex(file, row, text, "key");
    }

    /** A field that must be 16 lowercase hex digits ({@code what}: what it is, for the refusal). Also read by {@link SessionsCheck}. */
    static long hex(Path file, long row, String text, String what) {
        if (text.length() != 16 || !text.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            throw notCanonical(file, row, what + " '" + text + "' is not 16 lowercase hex digits");
        }
        return Long.parseUnsignedLong(text, 16);
    }

    private static long word(Path file, long row, String text) {
        int index = SentenceGenerator.indexOf(text);
        if (index < 0) {
            throw notCanonical(file, row, "'" + text + "' is not a word of the vocabulary");
        }
        return index;
    }

    /** The enrichment's (campaign, version) as one key: the version in the low 32 bits, the campaign's hash above. */
    private static long namedKey(Path file, long row, long campaign, long version) {
        if (version < 0 || version > Integer.MAX_VALUE) {
            throw notCanonical(file, row, "name version " + version + " out of range");
        }
        return (campaign * 0x9E3779B97F4A7C15L) & 0xFFFF_FFFF_0000_0000L | version;
    }

    static IllegalStateException notCanonical(Path file, long row, String why) {
        return new IllegalStateException(file + ":" + row + ": not canonical output: " + why);
    }

    /** The plain loop for the users query: every event per (window index, user key). */
    static LongObjectHashMap<LongLongHashMap> expectedUsers(long n, long seed, long rate) {
        YsbGenerator g = new YsbGenerator(seed, rate);
        LongObjectHashMap<LongLongHashMap> expected = new LongObjectHashMap<>();
        for (long i = 0; i < n; i++) {
            YsbEvent e = g.event(i);
            expected.getIfAbsentPut(windowIndex(e.eventTime() - Math.floorMod(e.eventTime(), YsbGenerator.WINDOW_MS)),
                    LongLongHashMap::new).addToValue(UsersQuery.keyOf(e), 1);
        }
        return expected;
    }

    /** The plain loop for the YSB query: views per (window index, campaign id). */
    static LongObjectHashMap<LongLongHashMap> expectedCounts(long n, long seed, long rate) {
        YsbGenerator g = new YsbGenerator(seed, rate);
        LongLongHashMap campaignOf = g.adToCampaign();
        LongObjectHashMap<LongLongHashMap> expected = new LongObjectHashMap<>();
        for (long i = 0; i < n; i++) {
            if (g.isView(i)) {
                YsbEvent e = g.event(i);
                expected.getIfAbsentPut(windowIndex(e.eventTime() - Math.floorMod(e.eventTime(), YsbGenerator.WINDOW_MS)),
                        LongLongHashMap::new).addToValue(campaignOf.getOrThrow(e.adId()), 1);
            }
        }
        return expected;
    }

    /**
     * The plain loop for YSBM: clicks (column 0) and views (column 1) per (window index,
     * campaign), only where both are present (an inner join).
     */
    static List<LongObjectHashMap<LongLongHashMap>> expectedJoin(long n, long seed, long rate) {
        YsbGenerator g = new YsbGenerator(seed, rate);
        LongLongHashMap campaignOf = g.adToCampaign();
        LongObjectHashMap<LongLongHashMap> clicks = new LongObjectHashMap<>();
        LongObjectHashMap<LongLongHashMap> views = new LongObjectHashMap<>();
        for (long i = 0; i < n; i++) {
            int type = g.eventType(i);
            if (type == YsbEvent.CLICK || type == YsbEvent.VIEW) {
                YsbEvent e = g.event(i);
                long w = windowIndex(e.eventTime() - Math.floorMod(e.eventTime(), YsbGenerator.WINDOW_MS));
                (type == YsbEvent.CLICK ? clicks : views).getIfAbsentPut(w, LongLongHashMap::new)
                        .addToValue(campaignOf.getOrThrow(e.adId()), 1);
            }
        }
        dropOneSided(clicks, views);
        dropOneSided(views, clicks);
        return List.of(clicks, views);
    }

    /** Removes from {@code a} every (window, key) that {@code b} lacks. */
    private static void dropOneSided(LongObjectHashMap<LongLongHashMap> a, LongObjectHashMap<LongLongHashMap> b) {
        a.forEachKeyValue((w, byKey) -> {
            LongLongHashMap other = b.get(w);
            for (long k : byKey.keySet().toArray()) {
                if (other == null || !other.containsKey(k)) {
                    byKey.remove(k);
                }
            }
        });
    }

    /** The plain loop for WA: every event per window index (key 0). */
    static LongObjectHashMap<LongLongHashMap> expectedTotals(long n, long seed, long rate) {
        YsbGenerator g = new YsbGenerator(seed, rate);
        LongObjectHashMap<LongLongHashMap> expected = new LongObjectHashMap<>();
        for (long i = 0; i < n; i++) {
            long t = YsbGenerator.T0 + i * 1000 / g.rate();
            expected.getIfAbsentPut(windowIndex(t - Math.floorMod(t, YsbGenerator.WINDOW_MS)), LongLongHashMap::new).addToValue(0, 1);
        }
        return expected;
    }

    /** The plain loop for the word count: every word of every sentence per (window index, word rank). */
    static LongObjectHashMap<LongLongHashMap> expectedWords(long n, long seed, long rate) {
        SentenceGenerator g = new SentenceGenerator(seed, rate);
        LongObjectHashMap<LongLongHashMap> expected = new LongObjectHashMap<>();
        for (long i = 0; i < n; i++) {
            long t = g.eventTime(i);
            LongLongHashMap byWord = expected.getIfAbsentPut(windowIndex(t - Math.floorMod(t, YsbGenerator.WINDOW_MS)), LongLongHashMap::new);
            for (int j = 0; j < g.length(i); j++) {
                byWord.addToValue(g.wordIndex(i, j), 1);
            }
        }
        return expected;
    }

    /** The plain loop for the enrichment: views per (window index, campaign and the name version it had then). */
    static LongObjectHashMap<LongLongHashMap> expectedNamed(long n, long seed, long rate) {
        YsbGenerator g = new YsbGenerator(seed, rate);
        LongLongHashMap campaignOf = g.adToCampaign();
        LongIntHashMap indexOf = new LongIntHashMap();
        for (int c = 0; c < YsbGenerator.CAMPAIGNS; c++) {
            indexOf.put(g.campaignId(c), c);
        }
        LongObjectHashMap<LongLongHashMap> expected = new LongObjectHashMap<>();
        for (long i = 0; i < n; i++) {
            if (g.isView(i)) {
                YsbEvent e = g.event(i);
                long campaign = campaignOf.getOrThrow(e.adId());
                int version = CampaignRenames.versionAt(indexOf.getOrThrow(campaign), e.eventTime());
                expected.getIfAbsentPut(windowIndex(e.eventTime() - Math.floorMod(e.eventTime(), YsbGenerator.WINDOW_MS)),
                        LongLongHashMap::new).addToValue((campaign * 0x9E3779B97F4A7C15L) & 0xFFFF_FFFF_0000_0000L | version, 1);
            }
        }
        return expected;
    }
}
