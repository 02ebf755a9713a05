package air.samples.ysb;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Compares a canonical sessions file (YSB-SPEC 11) with the plain loop's rows
 * ({@link SessionsLoop}). Rows are compared whole, as a multiset: the events of expected rows the
 * file lacks are <b>lost</b>, the events of rows the file has beyond the expected ones are
 * <b>duplicated</b> (a session split in two shows as both). A file that is not canonical is
 * refused with an {@link IllegalStateException} naming the file and line: a row not
 * {@code <start>,<end>,<ad 16 lowercase hex digits>,<count>} in plain decimal, an end not after its
 * start, a count that is not positive, rows out of order (by start, then ad unsigned), a
 * {@code \r}, or a last row without its {@code \n}. So {@code lost=0 dup=0} means byte for byte
 * the loop's file.
 */
final class SessionsCheck {

    private SessionsCheck() {
    }

    static YsbOutputCheck.Outcome compare(Path canonical, YsbRows expected) {
        String text;
        try {
            text = Files.readString(canonical, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + canonical, e);
        }
        Map<String, Long> missing = new HashMap<>(); // expected row -> how many times, less what the file has
        for (int i = 0; i < expected.size(); i++) {
            missing.merge(expected.line(i), 1L, Long::sum);
        }
        long duplicated = 0;
        long rows = 0;
        long lastStart = Long.MIN_VALUE;
        long lastAd = 0;
        int from = 0;
        while (from < text.length()) {
            int nl = text.indexOf('\n', from);
            rows++;
            if (nl < 0) {
                throw YsbOutputCheck.notCanonical(canonical, rows, "the last row has no \\n");
            }
            String line = text.substring(from, nl);
            from = nl + 1;
            if (line.indexOf('\r') >= 0) {
                throw YsbOutputCheck.notCanonical(canonical, rows, "a carriage return (rows end with \\n only)");
            }
            String[] f = line.split(",", -1);
            if (f.length != 4) {
                throw YsbOutputCheck.notCanonical(canonical, rows, "not a row '" + line + "' (<start>,<end>,<ad>,<count>)");
            }
            long start = YsbOutputCheck.decimal(canonical, rows, f[0], "start");
            long end = YsbOutputCheck.decimal(canonical, rows, f[1], "end");
            long ad = YsbOutputCheck.hex(canonical, rows, f[2], "ad");
            long count = YsbOutputCheck.decimal(canonical, rows, f[3], "count");
            if (end <= start || count <= 0) {
                throw YsbOutputCheck.notCanonical(canonical, rows, "'" + line + "' (a session ends after it starts and counts at least one event)");
            }
            if (rows > 1 && (start < lastStart || start == lastStart && Long.compareUnsigned(ad, lastAd) <= 0)) {
                throw YsbOutputCheck.notCanonical(canonical, rows, "out of the canonical order (by start, then ad unsigned): '" + line + "'");
            }
            lastStart = start;
            lastAd = ad;
            Long left = missing.get(line);
            if (left == null) {
                duplicated += count;
            } else if (left == 1) {
                missing.remove(line);
            } else {
                missing.put(line, left - 1);
            }
        }
        long lost = 0;
        for (Map.Entry<String, Long> e : missing.entrySet()) {
            lost += e.getValue() * Long.parseLong(e.getKey().substring(e.getKey().lastIndexOf(',') + 1));
        }
        return new YsbOutputCheck.Outcome(lost, duplicated, rows);
    }
}
