package air.samples.ysb;

import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The command line of YSB-SPEC section 8: {@code N [P] [--seed S] [--rate R] [--offered L]
 * [--out FILE]}, plus {@code --routing AIR|KEY}, {@code --quiet} (no progress line) and {@code --batch B}.
 */
public record YsbArgs(long n, int parallelism, long seed, long rate, long offered, Path out, boolean quiet, int batch, Routing routing,
        Progress progress, long watermarkMs, int peers,
                      YsbFaults faults, Query query) {

    /**
     * Which query runs over the YSB events: {@code ysb} (YSB-SPEC section 6, the default),
     * {@code ysbm} (section 9: click and view branches of one source, counted per campaign and
     * window and window-joined), {@code wa} (section 10: an unkeyed count per window) or
     * {@code wordcount} (seeded sentences, words counted per window: N sentences),
     * {@code enrich} (views joined with their campaign's name from a changelog stream as of each
     * view's event time, counted per window and name) or
     * {@code users}, a large-state job: all events counted per (10 s window, user id mod 2^20), so
     * with {@code --rate 1M} every window holds about a million keys.
     */
    public enum Query {
        YSB(YsbRows.Shape.COUNTS), USERS(YsbRows.Shape.COUNTS), YSBM(YsbRows.Shape.RATIOS), WA(YsbRows.Shape.TOTALS),
        WORDCOUNT(YsbRows.Shape.WORDS), ENRICH(YsbRows.Shape.NAMED);

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

    public static final String USAGE = "usage: ysb N [P] [--seed S] [--rate R] [--offered L] [--out FILE] [--routing AIR|KEY]"
            + " [--progress hewmeld|watermark] [--watermark-ms MS] [--batch B] [--peers K] [--checkpoints DIR]"
            + " [--checkpoint-interval T] [--replicas K] [--kill N] [--kill-seed S] [--query ysb|ysbm|wa|wordcount|enrich|users] [--quiet]\n"
            + "  N      events, with optional K/M/G suffix (5M = 5000000)\n"
            + "  P      workers (default: all available processors)\n"
            + "  --seed S     64-bit seed (default 42)\n"
            + "  --rate R     events per logical second (default 100000)\n"
            + "  --offered L  events per wall second; 0 = throughput mode (default 0); sets R = L\n"
            + "  --out FILE   canonical output file (default out/ysb-N.csv)\n"
            + "  --routing    AIR (by window) or KEY (by key hash, default)\n"
            + "  --progress   watermark (default) or hewmeld (exact credit per epoch)\n"
            + "  --watermark-ms MS  watermark period under --progress watermark (default 200)\n"
            + "  --peers K    run as K peer JVMs on this machine over MPJ Express (P workers each; default 1)\n"
            + "  --checkpoints DIR        checkpointing and rollback: state to DIR; a rerun resumes from it\n"
            + "  --checkpoint-interval T  how often, e.g. 1s or 500ms (default 1s; with --replicas: how often state is copied)\n"
            + "  --replicas K  replication: each peer's state also lives on its next K peers (TCP transport); a killed\n"
            + "               peer's share is taken over by a survivor without a restart\n"
            + "  --kill N     with --peers and --checkpoints or --replicas: kill -9 a random peer N times, check the output\n"
            + "  --kill-seed S  seed of the kills' victims and moments (default 1)\n"
            + "  --query Q    ysb (default); ysbm: clicks and views per campaign joined per window (YSB-SPEC 9); wa: every event\n"
            + "               counted per window, unkeyed (YSB-SPEC 10); wordcount: N seeded sentences, words per window; enrich: views\n"
            + "               joined with campaign names from a changelog stream, per window and name; users: every event per\n"
            + "               (window, user id mod 2^20), large state";

    /** The same run as this peer of {@code k}: cluster mode's args name the world size the peers actually formed. */
    public YsbArgs withPeers(int k) {
        return new YsbArgs(n, parallelism, seed, rate, offered, out, quiet, batch, routing, progress, watermarkMs, k, faults, query);
    }

    /** Parses the arguments; a bad one throws IllegalArgumentException naming it. */
    public static YsbArgs parse(String... args) {
        Long n = null;
        Integer p = null;
        long seed = 42;
        long rate = 100_000;
        long offered = 0;
        Path out = null;
        boolean quiet = false;
        int batch = 1024;
        Routing routing = Routing.KEY;
        Progress progress = Progress.WATERMARK;
        long watermarkMs = 200;
        int peers = 1;
        YsbFaults faults = YsbFaults.NONE;
        Query query = Query.YSB;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--seed" -> seed = parseLong("--seed", value(args, ++i, a));
                case "--rate" -> rate = positive("--rate", parseCount("--rate", value(args, ++i, a)));
                case "--offered" -> offered = parseCount("--offered", value(args, ++i, a));
                case "--out" -> out = Path.of(value(args, ++i, a));
                case "--batch" -> batch = (int) positive("--batch", parseCount("--batch", value(args, ++i, a)));
                case "--routing" -> routing = parseRouting(value(args, ++i, a));
                case "--progress" -> progress = parseProgress(value(args, ++i, a));
                case "--watermark-ms" -> watermarkMs = parseCount("--watermark-ms", value(args, ++i, a));
                case "--quiet" -> quiet = true;
                case "--checkpoints" -> faults = faults.withCheckpoints(Path.of(value(args, ++i, a)));
                case "--replicas" -> faults = faults.withReplicas((int) Math.min(16, positive(a, parseCount(a, value(args, ++i, a)))));
                case "--checkpoint-interval" -> faults = faults.withInterval(YsbFaults.parseMillis(a, value(args, ++i, a)));
                case "--kill" -> faults = faults.withKills((int) Math.min(1000, positive(a, parseCount(a, value(args, ++i, a)))));
                case "--query" -> query = parseQuery(value(args, ++i, a));
                case "--kill-seed" -> faults = faults.withKillSeed(parseLong(a, value(args, ++i, a)));
                case "--peers" -> {
                    long k = positive("--peers", parseCount("--peers", value(args, ++i, a)));
                    if (k > 256) {
                        throw new IllegalArgumentException("--peers must be <= 256, got " + k);
                    }
                    peers = (int) k;
                }
                default -> {
                    if (a.startsWith("--")) {
                        throw new IllegalArgumentException("unknown option " + a);
                    } else if (n == null) {
                        n = parseCount("N", a);
                    } else if (p == null) {
                        long workers = positive("P", parseCount("P", a));
                        if (workers > 4096) {
                            throw new IllegalArgumentException("P must be <= 4096, got " + a);
                        }
                        p = (int) workers;
                    } else {
                        throw new IllegalArgumentException("unexpected argument '" + a + "'");
                    }
                }
            }
        }
        if (n == null) {
            throw new IllegalArgumentException("N (number of events) is required");
        }
        if (offered < 0) {
            throw new IllegalArgumentException("--offered must be >= 0, got " + offered);
        }
        if (offered > 0) {
            rate = offered;
        }
        int workers = p != null ? p : Runtime.getRuntime().availableProcessors();
        if (out == null) {
            out = Path.of("out", query.cliName() + "-" + n + ".csv");
        }
        return new YsbArgs(n, workers, seed, rate, offered, out, quiet, batch, routing, progress, watermarkMs, peers,
                faults.validated(peers), query);
    }

    private static Progress parseProgress(String text) {
        try {
            return Progress.valueOf(text.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--progress must be hewmeld or watermark, got '" + text + "'");
        }
    }

    private static Query parseQuery(String text) {
        try {
            return Query.valueOf(text.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--query must be ysb, ysbm, wa, wordcount, enrich or users, got '" + text + "'");
        }
    }

    private static Routing parseRouting(String text) {
        try {
            return Routing.valueOf(text.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--routing must be AIR or KEY, got '" + text + "'");
        }
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static long positive(String name, long v) {
        if (v <= 0) {
            throw new IllegalArgumentException(name + " must be > 0, got " + v);
        }
        return v;
    }

    private static long parseLong(String name, String text) {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a 64-bit integer, got '" + text + "'");
        }
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
