package air.benchmarks;

import air.samples.ysb.SessionsLoop;
import air.samples.ysb.YsbArgs;
import air.samples.ysb.YsbReference;
import air.samples.ysb.YsbRows;
import air.workloads.ysb.YsbEvent;
import air.workloads.ysb.YsbGenerator;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import org.eclipse.collections.impl.map.mutable.primitive.LongLongHashMap;
import org.eclipse.collections.impl.map.mutable.primitive.LongObjectHashMap;

/**
 * The baseline: the YSB-mem query as a plain hand-written single-threaded loop, with the same
 * generator, the same materialised event, the same hash-map join and a per-window count map.
 * {@code YsbLoop N [--seed S] [--rate R] [--out FILE] [--query ysb|users]} prints a RESULT line with
 * engine=loop, then (untimed) writes the canonical output file (YSB-SPEC 6.1) and checks its SHA-256
 * against the reference where YSB-SPEC 6.3 has one: exit 1 on a mismatch. The benchmark scripts
 * compare every engine run's output with this file where the spec has no reference. {@code --query
 * users} counts every event per (window, user id mod 2^20), the large-state job's output.
 */
public final class YsbLoop {

    private YsbLoop() {
    }

    public static void main(String[] argv) throws IOException {
        System.exit(run(YsbArgs.parse(argv), System.out, System.err));
    }

    /** One run, printing to {@code out} and {@code err}: the exit status, 0 or 1 on a reference mismatch. */
    static int run(YsbArgs args, PrintStream out, PrintStream err) throws IOException {
        switch (args.query()) {
            case USERS -> {
                return users(args, out);
            }
            case YSBM -> {
                return ysbm(args, out, err);
            }
            case WA -> {
                return wa(args, out, err);
            }
            case SESSIONS -> {
                return sessions(args, out, err);
            }
            default -> { }
        }
        YsbGenerator generator = new YsbGenerator(args.seed(), args.rate());
        LongLongHashMap campaignOfAd = generator.adToCampaign();
        LongObjectHashMap<LongLongHashMap> counts = new LongObjectHashMap<>();
        long start = System.nanoTime();
        long currentWindow = Long.MIN_VALUE;
        LongLongHashMap current = null;
        for (long i = 0; i < args.n(); i++) {
            YsbEvent e = generator.event(i);
            if (e.eventType() != YsbEvent.VIEW) {
                continue;
            }
            long campaign = campaignOfAd.getOrThrow(e.adId());
            long window = e.eventTime() - e.eventTime() % YsbGenerator.WINDOW_MS;
            if (window != currentWindow) {
                current = counts.getIfAbsentPut(window, LongLongHashMap::new);
                currentWindow = window;
            }
            current.addToValue(campaign, 1);
        }
        long runNanos = System.nanoTime() - start;
        long views = 0;
        long rows = 0;
        for (LongLongHashMap m : counts.values()) {
            views += m.sum();
            rows += m.size();
        }
        String sha = writeCanonical(counts, args.out());
        out.printf(Locale.ROOT, "RESULT engine=loop p=1 java=%d mode=throughput n=%d seed=%d rate=%d offered=0 windows=%d rows=%d"
                        + " views=%d sha256=%s run_s=%.3f throughput_eps=%.0f%n",
                Runtime.version().feature(), args.n(), args.seed(), args.rate(), counts.size(), rows, views, sha,
                runNanos / 1e9, args.n() * 1e9 / runNanos);
        return verify(args, sha, err);
    }

    /** The users query's counts the same way: per window, user id mod 2^20. */
    private static int users(YsbArgs args, PrintStream out) throws IOException {
        YsbGenerator generator = new YsbGenerator(args.seed(), args.rate());
        LongObjectHashMap<LongLongHashMap> counts = new LongObjectHashMap<>();
        long start = System.nanoTime();
        for (long i = 0; i < args.n(); i++) {
            YsbEvent e = generator.event(i);
            long window = e.eventTime() - e.eventTime() % YsbGenerator.WINDOW_MS;
            counts.getIfAbsentPut(window, LongLongHashMap::new).addToValue(e.userId() & (YsbArgs.Query.USER_KEYS - 1), 1);
        }
        long runNanos = System.nanoTime() - start;
        long rows = counts.sumOfInt(LongLongHashMap::size);
        String sha = writeCanonical(counts, args.out());
        out.printf(Locale.ROOT, "RESULT engine=loop query=users p=1 java=%d mode=throughput n=%d seed=%d rate=%d offered=0 windows=%d"
                        + " rows=%d views=%d sha256=%s run_s=%.3f throughput_eps=%.0f%n",
                Runtime.version().feature(), args.n(), args.seed(), args.rate(), counts.size(), rows, args.n(), sha,
                runNanos / 1e9, args.n() * 1e9 / runNanos);
        return 0;
    }

    /**
     * YSBM's baseline: one pass counting clicks and views per (window, campaign) in one map of
     * packed pairs, no branches and no join; the rows are the pairs with both.
     */
    private static int ysbm(YsbArgs args, PrintStream out, PrintStream err) throws IOException {
        YsbGenerator generator = new YsbGenerator(args.seed(), args.rate());
        LongLongHashMap campaignOfAd = generator.adToCampaign();
        LongObjectHashMap<LongLongHashMap> clicks = new LongObjectHashMap<>();
        LongObjectHashMap<LongLongHashMap> views = new LongObjectHashMap<>();
        long start = System.nanoTime();
        long currentWindow = Long.MIN_VALUE;
        LongLongHashMap currentClicks = null;
        LongLongHashMap currentViews = null;
        for (long i = 0; i < args.n(); i++) {
            YsbEvent e = generator.event(i);
            int type = e.eventType();
            if (type == YsbEvent.PURCHASE) {
                continue;
            }
            long campaign = campaignOfAd.getOrThrow(e.adId());
            long window = e.eventTime() - e.eventTime() % YsbGenerator.WINDOW_MS;
            if (window != currentWindow) {
                currentClicks = clicks.getIfAbsentPut(window, LongLongHashMap::new);
                currentViews = views.getIfAbsentPut(window, LongLongHashMap::new);
                currentWindow = window;
            }
            (type == YsbEvent.CLICK ? currentClicks : currentViews).addToValue(campaign, 1);
        }
        long runNanos = System.nanoTime() - start;
        String sha = writeRows(args.out(), YsbRowsOut.ratios(clicks, views));
        long[] totals = YsbRowsOut.totals(clicks, views);
        out.printf(Locale.ROOT, "RESULT engine=loop query=ysbm p=1 java=%d mode=throughput n=%d seed=%d rate=%d offered=0 windows=%d"
                        + " rows=%d views=%d sha256=%s run_s=%.3f throughput_eps=%.0f%n",
                Runtime.version().feature(), args.n(), args.seed(), args.rate(), clicks.size(), totals[0], totals[1], sha,
                runNanos / 1e9, args.n() * 1e9 / runNanos);
        return verify(args, sha, err);
    }

    /** WA's baseline: one counter per window, over the same materialised events as the engine's. */
    private static int wa(YsbArgs args, PrintStream out, PrintStream err) throws IOException {
        YsbGenerator generator = new YsbGenerator(args.seed(), args.rate());
        LongLongHashMap counts = new LongLongHashMap();
        long start = System.nanoTime();
        long currentWindow = Long.MIN_VALUE;
        long current = 0;
        long digest = 0; // every field read, so that the JIT cannot drop the event's materialisation (the engine cannot)
        for (long i = 0; i < args.n(); i++) {
            YsbEvent e = generator.event(i);
            digest += e.userId() ^ e.pageId() ^ e.adId() ^ e.ipAddress() ^ e.adType() ^ e.eventType();
            long window = e.eventTime() - e.eventTime() % YsbGenerator.WINDOW_MS;
            if (window != currentWindow) {
                if (current > 0) {
                    counts.addToValue(currentWindow, current);
                }
                currentWindow = window;
                current = 0;
            }
            current++;
        }
        if (current > 0) {
            counts.addToValue(currentWindow, current);
        }
        long runNanos = System.nanoTime() - start;
        StringBuilder rows = new StringBuilder();
        for (long window : counts.keySet().toSortedArray()) {
            rows.append(window).append(',').append(counts.get(window)).append('\n');
        }
        String sha = writeRows(args.out(), rows.toString());
        err.printf(Locale.ROOT, "ysb-loop: wa: digest of every event's fields %x%n", digest);
        out.printf(Locale.ROOT, "RESULT engine=loop query=wa p=1 java=%d mode=throughput n=%d seed=%d rate=%d offered=0 windows=%d"
                        + " rows=%d views=%d sha256=%s run_s=%.3f throughput_eps=%.0f%n",
                Runtime.version().feature(), args.n(), args.seed(), args.rate(), counts.size(), counts.size(), counts.sum(), sha,
                runNanos / 1e9, args.n() * 1e9 / runNanos);
        return verify(args, sha, err);
    }

    /** Sessions (YSB-SPEC 11): the samples' plain loop ({@link SessionsLoop}), timed, its canonical file written. */
    private static int sessions(YsbArgs args, PrintStream out, PrintStream err) throws IOException {
        long start = System.nanoTime();
        YsbRows rows = SessionsLoop.rows(args.n(), args.seed(), args.rate(), args.gapMs());
        long runNanos = System.nanoTime() - start;
        String sha = rows.writeCanonical(args.out());
        out.printf(Locale.ROOT, "RESULT engine=loop query=sessions p=1 java=%d mode=throughput n=%d seed=%d rate=%d offered=0 windows=%d"
                        + " rows=%d views=%d sha256=%s run_s=%.3f throughput_eps=%.0f gap_ms=%d%n",
                Runtime.version().feature(), args.n(), args.seed(), args.rate(), rows.windows(), rows.size(), rows.views(), sha,
                runNanos / 1e9, args.n() * 1e9 / runNanos, args.gapMs());
        return verify(args, sha, err);
    }

    /** Writes {@code text} to {@code file}; its SHA-256 in lowercase hex. */
    private static String writeRows(Path file, String text) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        Files.write(file, bytes);
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The reference check of YSB-SPEC 6.3, 9 or 10, in the engine's words: 0, or 1 on a mismatch. */
    private static int verify(YsbArgs args, String sha, PrintStream err) {
        String reference = YsbReference.sha256(args);
        if (reference == null) {
            err.println("ysb-loop: no reference checksum for these parameters; output written to " + args.out());
            return 0;
        }
        if (reference.equals(sha)) {
            err.println("ysb-loop: checksum matches the reference (YSB-SPEC 6.3)");
            return 0;
        }
        err.println("ysb-loop: MISMATCH: checksum " + sha + " differs from the reference " + reference);
        return 1;
    }

    /**
     * Writes the rows sorted by window, then key as unsigned (YSB-SPEC 6.1), as
     * {@code <window>,<key as 16 hex digits>,<count>\n}; returns the file's SHA-256 in lowercase hex.
     */
    static String writeCanonical(LongObjectHashMap<LongLongHashMap> counts, Path file) throws IOException {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (OutputStream out = new DigestOutputStream(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16), sha)) {
            for (long window : counts.keySet().toSortedArray()) {
                LongLongHashMap perKey = counts.get(window);
                for (long key : YsbRowsOut.unsignedOrder(perKey)) {
                    out.write((window + "," + YsbEvent.hex(key) + "," + perKey.get(key) + "\n").getBytes(StandardCharsets.US_ASCII));
                }
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }
}
