package air.benchmarks;

import air.samples.ysb.YsbArgs;
import air.samples.ysb.YsbReference;
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
import java.util.Arrays;
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
        if (args.query() == YsbArgs.Query.USERS) {
            return users(args, out);
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

    /** The reference check of YSB-SPEC 6.3, in the engine's words: 0, or 1 on a mismatch. */
    private static int verify(YsbArgs args, String sha, PrintStream err) {
        String reference = YsbReference.sha256(args.n(), args.seed(), args.rate());
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
                long[] keys = perKey.keySet().toArray();
                for (int i = 0; i < keys.length; i++) {
                    keys[i] ^= Long.MIN_VALUE; // signed order of the flipped keys is the unsigned order
                }
                Arrays.sort(keys);
                for (long flipped : keys) {
                    long key = flipped ^ Long.MIN_VALUE;
                    out.write((window + "," + YsbEvent.hex(key) + "," + perKey.get(key) + "\n").getBytes(StandardCharsets.US_ASCII));
                }
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }
}
