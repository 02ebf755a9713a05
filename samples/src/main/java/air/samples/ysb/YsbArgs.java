package air.samples.ysb;

import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The command line of YSB-SPEC section 8: {@code N [P] [--seed S] [--rate R] [--offered L]
 * [--out FILE]}, plus {@code --routing AIR|KEY}, {@code --quiet} (no progress line), {@code --batch B} and, for the
 * sessions query, {@code --gap G} ({@code gapMs}; 0 for the other queries).
 */
public record YsbArgs(long n, int parallelism, long seed, long rate, long offered, Path out, boolean quiet, int batch, Routing routing,
        Progress progress, long watermarkMs, int peers,
                      YsbFaults faults, Query query, boolean fresh, long gapMs, KafkaInput kafka) {

    /** {@code --kafka HOST:PORT --topic T}: the events are read from this topic (produced there first by {@code ysb-kafka}); null: generated. */
    public record KafkaInput(String bootstrap, String topic) { }

    /**
     * Which query runs over the YSB events: {@code ysb} (YSB-SPEC section 6, the default),
     * {@code ysbm} (section 9: click and view branches of one source, counted per campaign and
     * window and window-joined), {@code wa} (section 10: an unkeyed count per window) or
     * {@code wordcount} (seeded sentences, words counted per window: N sentences),
     * {@code enrich} (views joined with their campaign's name from a changelog stream as of each
     * view's event time, counted per window and name) or
     * {@code users}, a large-state job: all events counted per (10 s window, user id mod 2^20), so
     * with {@code --rate 1M} every window holds about a million keys, {@code sessions}
     * (section 11: every event counted per event-time session of its ad, gap {@code --gap}) or
     * {@code process}, the YSB query's computation written as a keyed process function (per
     * campaign a map state window -> count and an event-time timer at each window's end, which
     * emits the count and clears it; {@link ProcessQuery}): its output is the {@code ysb} query's,
     * byte for byte, checked against the same references.
     */
    public enum Query {
        YSB(YsbRows.Shape.COUNTS), USERS(YsbRows.Shape.COUNTS), YSBM(YsbRows.Shape.RATIOS), WA(YsbRows.Shape.TOTALS),
        WORDCOUNT(YsbRows.Shape.WORDS), ENRICH(YsbRows.Shape.NAMED), SESSIONS(YsbRows.Shape.SESSIONS),
        PROCESS(YsbRows.Shape.COUNTS);

        private final YsbRows.Shape shape;

        Query(YsbRows.Shape shape) {
            this.shape = shape;
        }

        /** The rows this query writes. */
        public YsbRows.Shape shape() {
            return shape;
        }

        /** The query's name on the command line and in file names. */
        public String cliName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The key space of the users query. */
        public static final long USER_KEYS = 1L << 20;
    }

    /** The usage text of {@code ysb --help} (picocli's, from {@link YsbCommand}'s annotations). */
    public static String usage() {
        return YsbCommand.usage();
    }

    /** The same run as this peer of {@code k}: cluster mode's args name the world size the peers actually formed. */
    public YsbArgs withPeers(int k) {
        return new YsbArgs(n, parallelism, seed, rate, offered, out, quiet, batch, routing, progress, watermarkMs, k, faults, query, fresh, gapMs,
                kafka);
    }

    /** Parses the arguments (picocli: {@link YsbCommand}); a bad one throws IllegalArgumentException naming it. */
    public static YsbArgs parse(String... args) {
        return YsbCommand.parse(args);
    }

    /** A non-negative count with an optional K, M or G (decimal) suffix. */
    static long parseCount(String name, String text) {
        String t = text.trim().toUpperCase(Locale.ROOT);
        long scale = 1;
        if (!t.isEmpty()) {
            switch (t.charAt(t.length() - 1)) {
                case 'K' -> scale = 1_000L;
                case 'M' -> scale = 1_000_000L;
                case 'G' -> scale = 1_000_000_000L;
                default -> { }
            }
        }
        String digits = scale == 1 ? t : t.substring(0, t.length() - 1);
        try {
            long v = Math.multiplyExact(Long.parseLong(digits), scale);
            if (v < 0) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException(name + " must be a non-negative count like 5M, got '" + text + "'");
        }
    }
}
