package air.samples.ysb;

import air.dsl.ysb.YsbEvent;
import air.dsl.ysb.YsbGenerator;
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

    static Outcome check(Path canonical, long n, long seed, long rate) {
        Map<String, Long> expected = expected(n, seed, rate);
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
