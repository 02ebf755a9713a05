package air.samples.ysb;

import air.wire.FrameException;
import air.wire.LongColumns;
import air.wire.WireIn;
import air.wire.WireOut;
import air.workloads.words.SentenceGenerator;
import air.workloads.ysb.YsbEvent;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * The job's output rows, sorted canonically (YSB-SPEC 6.1): by window, then key unsigned. Each row
 * holds a window start, a key (a campaign or user; 0 for the unkeyed WA), one or two counts and
 * the wall time it reached the sink; its {@link Shape} says how it is written.
 */
public final class YsbRows {

    /** How a query's rows are written, and which of their counts are events. */
    public enum Shape {
        /** {@code <window_start>,<key hex>,<count>}: YSB (views per campaign) and the users query. */
        COUNTS,
        /** {@code <window_start>,<campaign hex>,<clicks>,<views>,<ratio_ppm>}: YSBM (YSB-SPEC 9). */
        RATIOS,
        /** {@code <window_start>,<count>}: WA (YSB-SPEC 10), one row per window. */
        TOTALS,
        /** {@code <window_start>,<word>,<count>}: the word count; the key is the word's rank in the vocabulary. */
        WORDS,
        /** {@code <window_start>,<campaign hex>,<name version>,<count>}: the enrichment's views per campaign name. */
        NAMED,
        /** {@code <start>,<end>,<ad hex>,<count>}: a session of an ad (YSB-SPEC 11); its end is kept in the second count column. */
        SESSIONS;

        String line(long window, long key, long first, long second) {
            return switch (this) {
                case COUNTS -> window + "," + YsbEvent.hex(key) + "," + first;
                case RATIOS -> window + "," + YsbEvent.hex(key) + "," + first + "," + second + "," + ratioPpm(first, second);
                case TOTALS -> window + "," + first;
                case WORDS -> window + "," + SentenceGenerator.word((int) key) + "," + first;
                case NAMED -> window + "," + YsbEvent.hex(key) + "," + second + "," + first;
                case SESSIONS -> window + "," + second + "," + YsbEvent.hex(key) + "," + first;
            };
        }

        /** The events a row counts: its count, or clicks + views. */
        long events(long first, long second) {
            return this == RATIOS ? first + second : first;
        }
    }

    /** {@code floor(clicks * 1 000 000 / views)} in exact integer arithmetic (YSB-SPEC 9). */
    static long ratioPpm(long clicks, long views) {
        return Math.multiplyExact(clicks, 1_000_000L) / views;
    }

    /** The columns of a row table: window start, key, count, second count, emit time. */
    private static final int COLUMNS = 5;

    final Shape shape;
    final long[] windowStart;
    final long[] campaign;
    final long[] count;
    final long[] second;
    final long[] emitNanos;

    private YsbRows(Shape shape, int n) {
        this.shape = shape;
        this.windowStart = new long[n];
        this.campaign = new long[n];
        this.count = new long[n];
        this.second = new long[n];
        this.emitNanos = new long[n];
    }

    static YsbRows merge(List<YsbResultSink.Rows> parts) {
        return merge(parts, Shape.COUNTS);
    }

    static YsbRows merge(List<YsbResultSink.Rows> parts, Shape shape) {
        int total = parts.stream().mapToInt(p -> p.size).sum();
        YsbRows all = new YsbRows(shape, total);
        int k = 0;
        for (YsbResultSink.Rows p : parts) {
            for (int i = 0; i < p.size; i++, k++) {
                all.windowStart[k] = p.windowStart[i];
                all.campaign[k] = p.campaign[i];
                all.count[k] = p.count[i];
                all.second[k] = p.second[i];
                all.emitNanos[k] = p.emitNanos[i];
            }
        }
        Integer[] order = new Integer[total];
        Arrays.setAll(order, i -> i);
        long[] ws = all.windowStart;
        long[] c = all.campaign;
        long[] m = all.second; // the enrichment has one row per (window, campaign, version)
        Arrays.sort(order, (a, b) -> ws[a] != ws[b] ? Long.compare(ws[a], ws[b])
                : c[a] != c[b] ? Long.compareUnsigned(c[a], c[b]) : Long.compare(m[a], m[b]));
        YsbRows rows = new YsbRows(shape, total);
        for (int i = 0; i < total; i++) {
            rows.windowStart[i] = all.windowStart[order[i]];
            rows.campaign[i] = all.campaign[order[i]];
            rows.count[i] = all.count[order[i]];
            rows.second[i] = all.second[order[i]];
            rows.emitNanos[i] = all.emitNanos[order[i]];
        }
        return rows;
    }

    /**
     * Rows with emit times moved by {@code -originNanos}, as bytes: what a peer sends to rank 0. The
     * columns packed ({@link LongColumns}): sorted rows of small keys and counts take about a quarter
     * of their forty bytes.
     */
    byte[] encode(long originNanos) {
        long[] emitted = new long[size()];
        for (int i = 0; i < emitted.length; i++) {
            emitted[i] = emitNanos[i] - originNanos;
        }
        return encode(0, size(), windowStart, campaign, count, second, emitted);
    }

    /** Rows {@code from .. from + n - 1} of these columns as {@link #decode} reads them. */
    static byte[] encode(int from, int n, long[] windowStart, long[] campaign, long[] count, long[] second, long[] emitNanos) {
        WireOut out = new WireOut(64 + n * 12);
        LongColumns.write(out, from, n, windowStart, campaign, count, second, emitNanos);
        return out.toBytes();
    }

    /** The rows of {@link #encode}; a malformed array names the peer it came from. */
    static YsbResultSink.Rows decode(byte[] bytes, int peer) {
        WireIn in = new WireIn(ByteBuffer.wrap(bytes), peer);
        long[][] t;
        try {
            t = LongColumns.read(in, COLUMNS);
        } catch (FrameException e) {
            throw new IllegalStateException("peer " + peer + " sent " + bytes.length + " bytes of results, not a row table: " + e.getMessage(), e);
        }
        if (in.remaining() != 0) {
            throw new IllegalStateException("peer " + peer + " sent " + bytes.length + " bytes of results, " + in.remaining()
                    + " of them after its row table");
        }
        YsbResultSink.Rows rows = new YsbResultSink.Rows();
        for (int i = 0; i < t[0].length; i++) {
            rows.add(t[0][i], t[1][i], t[2][i], t[3][i], t[4][i]);
        }
        return rows;
    }

    public int size() {
        return windowStart.length;
    }

    /** The events the rows count (views for YSB; clicks and views for YSBM; all events for WA). */
    public long views() {
        long sum = 0;
        for (int i = 0; i < size(); i++) {
            sum += shape.events(count[i], second[i]);
        }
        return sum;
    }

    public long windows() {
        return Arrays.stream(windowStart).distinct().count();
    }

    public long lastEmitNanos() {
        return Arrays.stream(emitNanos).max().orElse(0);
    }

    /** Row {@code i} in the canonical text form, without the newline. */
    public String line(int i) {
        return shape.line(windowStart[i], campaign[i], count[i], second[i]);
    }

    /** Writes the canonical file and returns its SHA-256 in lowercase hex. */
    public String writeCanonical(Path file) throws IOException {
        MessageDigest sha = sha256();
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
            for (int i = 0; i < size(); i++) {
                byte[] bytes = (line(i) + "\n").getBytes(StandardCharsets.US_ASCII);
                sha.update(bytes);
                out.write(bytes);
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    /** The SHA-256 of the canonical file, without writing it. */
    public String checksum() {
        MessageDigest sha = sha256();
        for (int i = 0; i < size(); i++) {
            sha.update((line(i) + "\n").getBytes(StandardCharsets.US_ASCII));
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
