package air.samples.ysb;

import air.workloads.ysb.YsbEvent;
import air.workloads.ysb.YsbGenerator;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.eclipse.collections.impl.map.mutable.primitive.LongLongHashMap;
import org.eclipse.collections.impl.map.mutable.primitive.LongObjectHashMap;

/**
 * Compares a canonical YSB output file with what a plain loop over the generator gives.
 *
 * <p>Counts are summed per (window, key) over the file's rows: views the loop has beyond what the
 * file sums to are <b>lost</b>; views the file sums to beyond the loop's are <b>duplicated</b>, and
 * so is every row whose (window, key) an earlier row already had (a window emitted twice, even
 * split so that the two rows add up). Both are 0 only when the file holds exactly the loop's rows.
 *
 * <p>A file that is not canonical (YSB-SPEC 6.1) is refused with an {@link IllegalStateException}
 * naming the file and line: a row that is not {@code <window_start>,<16 lowercase hex digits>,<count>}
 * in plain decimal, a count that is not positive, a window start that is not {@code T0 + k * 10 s},
 * rows out of the canonical order, a {@code \r}, or a last row without its {@code \n}. So a file that
 * passes with {@code lost=0 dup=0} is byte for byte the loop's canonical file.
 */
final class YsbOutputCheck {

    /** Lost and duplicated views, and the rows compared. */
    record Outcome(long lost, long duplicated, long rows) { }

    private YsbOutputCheck() {
    }

    static Outcome check(Path canonical, YsbArgs args) {
        return compare(canonical, args.query() == YsbArgs.Query.USERS
                ? expectedUsers(args.n(), args.seed(), args.rate())
                : expectedCounts(args.n(), args.seed(), args.rate()));
    }

    /** The file against expected counts per window index, then key. */
    static Outcome compare(Path canonical, LongObjectHashMap<LongLongHashMap> expected) {
        LongObjectHashMap<LongLongHashMap> seen = new LongObjectHashMap<>();
        long repeated = 0;
        long rows = 0;
        long lastWindow = Long.MIN_VALUE;
        long lastKey = 0;
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
                if (f.length != 3) {
                    throw notCanonical(canonical, rows, "not a row '" + text + "'");
                }
                long window = decimal(canonical, rows, f[0], "window start");
                long key = hexKey(canonical, rows, f[1]);
                long count = decimal(canonical, rows, f[2], "count");
                if (count <= 0) {
                    throw notCanonical(canonical, rows, "count " + count + " (rows have counts > 0)");
                }
                if (window < YsbGenerator.T0 || (window - YsbGenerator.T0) % YsbGenerator.WINDOW_MS != 0) {
                    throw notCanonical(canonical, rows, "window start " + window + " is not T0 + k * " + YsbGenerator.WINDOW_MS + " ms");
                }
                int order = window != lastWindow ? Long.compare(window, lastWindow) : Long.compareUnsigned(key, lastKey);
                if (rows > 1 && order < 0) {
                    throw notCanonical(canonical, rows, "out of the canonical order (by window, then key unsigned): '" + text
                            + "' after " + lastWindow + "," + YsbEvent.hex(lastKey));
                }
                lastWindow = window;
                lastKey = key;
                LongLongHashMap counts = seen.getIfAbsentPut(windowIndex(window), LongLongHashMap::new);
                if (counts.containsKey(key)) {
                    repeated += count;
                }
                counts.addToValue(key, count);
            }
            if (open) {
                throw notCanonical(canonical, rows + 1, "the last row has no \\n");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + canonical, e);
        }
        long lost = beyond(expected, seen);
        long extra = beyond(seen, expected);
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

    private static long decimal(Path file, long row, String text, String what) {
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
        if (text.length() != 16 || !text.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            throw notCanonical(file, row, "key '" + text + "' is not 16 lowercase hex digits");
        }
        return Long.parseUnsignedLong(text, 16);
    }

    private static IllegalStateException notCanonical(Path file, long row, String why) {
        return new IllegalStateException(file + ":" + row + ": not canonical YSB output: " + why);
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
}
