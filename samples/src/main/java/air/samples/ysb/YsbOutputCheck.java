package air.samples.ysb;

import air.workloads.ysb.YsbEvent;
import air.workloads.ysb.YsbGenerator;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.eclipse.collections.impl.map.mutable.primitive.LongLongHashMap;

/**
 * Compares a canonical YSB output file with what a plain loop over the generator gives: views
 * missing from it are lost, views it has beyond that are duplicated (also a row that appears twice).
 */
final class YsbOutputCheck {

    /** Lost and duplicated views, and the rows compared. */
    record Outcome(long lost, long duplicated, long rows) { }

    private YsbOutputCheck() {
    }

    static Outcome check(Path canonical, YsbArgs args) {
        if (args.query() == YsbArgs.Query.USERS) {
            return checkUsers(canonical, args);
        }
        Map<String, Long> expected = expected(args.n(), args.seed(), args.rate());
        Map<String, Long> seen = new HashMap<>();
        long dup = 0;
        List<String> lines;
        try {
            lines = Files.readAllLines(canonical, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + canonical, e);
        }
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            int comma = line.lastIndexOf(',');
            if (comma < 0) {
                throw new IllegalStateException(canonical + ":" + (i + 1) + ": not a YSB row: '" + line + "'");
            }
            String key = line.substring(0, comma);
            long count = Long.parseLong(line.substring(comma + 1));
            if (seen.put(key, count) != null) {
                dup += count;
            }
        }
        long lost = 0;
        for (Map.Entry<String, Long> e : expected.entrySet()) {
            long got = seen.getOrDefault(e.getKey(), 0L);
            lost += Math.max(0, e.getValue() - got);
            dup += Math.max(0, got - e.getValue());
        }
        for (Map.Entry<String, Long> e : seen.entrySet()) {
            if (!expected.containsKey(e.getKey())) {
                dup += e.getValue();
            }
        }
        return new Outcome(lost, dup, lines.size());
    }

    /**
     * The users query has millions of rows: keys packed as {@code window index * 2^20 + user key}
     * in primitive maps rather than strings.
     */
    private static Outcome checkUsers(Path canonical, YsbArgs args) {
        YsbGenerator g = new YsbGenerator(args.seed(), args.rate());
        LongLongHashMap expected = new LongLongHashMap();
        for (long i = 0; i < args.n(); i++) {
            YsbEvent e = g.event(i);
            expected.addToValue(packed(e.eventTime() - Math.floorMod(e.eventTime(), YsbGenerator.WINDOW_MS), UsersQuery.keyOf(e)), 1);
        }
        LongLongHashMap seen = new LongLongHashMap();
        long dup = 0;
        long rows = 0;
        try (var lines = Files.lines(canonical, StandardCharsets.US_ASCII)) {
            for (String line : (Iterable<String>) lines::iterator) {
                rows++;
                String[] f = line.split(",");
                if (f.length != 3) {
                    throw new IllegalStateException(canonical + ":" + rows + ": not a row: '" + line + "'");
                }
                long key = packed(Long.parseLong(f[0]), Long.parseUnsignedLong(f[1], 16));
                long count = Long.parseLong(f[2]);
                if (seen.containsKey(key)) {
                    dup += count;
                }
                seen.addToValue(key, count);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + canonical, e);
        }
        long[] lost = {0};
        long[] extra = {0};
        expected.forEachKeyValue((k, v) -> lost[0] += Math.max(0, v - seen.get(k)));
        seen.forEachKeyValue((k, v) -> extra[0] += Math.max(0, v - expected.get(k)));
        return new Outcome(lost[0], Math.max(dup, extra[0]), rows);
    }

    private static long packed(long windowStart, long userKey) {
        return (windowStart - YsbGenerator.T0) / YsbGenerator.WINDOW_MS * YsbArgs.Query.USER_KEYS + userKey;
    }

    /** Views per (window, campaign) in the canonical key form {@code window,campaign}. */
    static Map<String, Long> expected(long n, long seed, long rate) {
        YsbGenerator g = new YsbGenerator(seed, rate);
        LongLongHashMap campaignOf = g.adToCampaign();
        Map<String, Long> counts = new HashMap<>();
        LongStream.range(0, n).filter(g::isView).forEach(i -> {
            YsbEvent e = g.event(i);
            long window = e.eventTime() - Math.floorMod(e.eventTime(), YsbGenerator.WINDOW_MS);
            counts.merge(window + "," + YsbEvent.hex(campaignOf.get(e.adId())), 1L, Long::sum);
        });
        return counts;
    }
}
