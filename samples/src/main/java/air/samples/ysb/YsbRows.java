package air.samples.ysb;

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

/** The job's output rows, sorted canonically (YSB-SPEC 6.1): by window, then campaign unsigned. */
public final class YsbRows {

    final long[] windowStart;
    final long[] campaign;
    final long[] count;
    final long[] emitNanos;

    private YsbRows(long[] windowStart, long[] campaign, long[] count, long[] emitNanos) {
        this.windowStart = windowStart;
        this.campaign = campaign;
        this.count = count;
        this.emitNanos = emitNanos;
    }

    static YsbRows merge(List<YsbResultSink.Rows> parts) {
        int total = parts.stream().mapToInt(p -> p.size).sum();
        Integer[] order = new Integer[total];
        long[] ws = new long[total];
        long[] c = new long[total];
        long[] n = new long[total];
        long[] t = new long[total];
        int k = 0;
        for (YsbResultSink.Rows p : parts) {
            for (int i = 0; i < p.size; i++, k++) {
                ws[k] = p.windowStart[i];
                c[k] = p.campaign[i];
                n[k] = p.count[i];
                t[k] = p.emitNanos[i];
                order[k] = k;
            }
        }
        Arrays.sort(order, (a, b) -> ws[a] != ws[b] ? Long.compare(ws[a], ws[b]) : Long.compareUnsigned(c[a], c[b]));
        YsbRows rows = new YsbRows(new long[total], new long[total], new long[total], new long[total]);
        for (int i = 0; i < total; i++) {
            rows.windowStart[i] = ws[order[i]];
            rows.campaign[i] = c[order[i]];
            rows.count[i] = n[order[i]];
            rows.emitNanos[i] = t[order[i]];
        }
        return rows;
    }

    /** Rows with emit times moved by {@code -originNanos}, as bytes: what a peer sends to rank 0. */
    byte[] encode(long originNanos) {
        ByteBuffer b = ByteBuffer.allocate(4 + size() * 32);
        b.putInt(size());
        for (int i = 0; i < size(); i++) {
            b.putLong(windowStart[i]).putLong(campaign[i]).putLong(count[i]).putLong(emitNanos[i] - originNanos);
        }
        return b.array();
    }

    /** The rows of {@link #encode}; a malformed array names the peer it came from. */
    static YsbResultSink.Rows decode(byte[] bytes, int peer) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        int n = bytes.length >= 4 ? b.getInt() : -1;
        if (n < 0 || bytes.length != 4 + 32L * n) {
            throw new IllegalStateException("peer " + peer + " sent " + bytes.length + " bytes of results, not a row table");
        }
        YsbResultSink.Rows rows = new YsbResultSink.Rows();
        for (int i = 0; i < n; i++) {
            rows.add(b.getLong(), b.getLong(), b.getLong(), b.getLong());
        }
        return rows;
    }

    public int size() {
        return windowStart.length;
    }

    public long views() {
        return Arrays.stream(count).sum();
    }

    public long windows() {
        return Arrays.stream(windowStart).distinct().count();
    }

    public long lastEmitNanos() {
        return Arrays.stream(emitNanos).max().orElse(0);
    }

    /** Row {@code i} in the canonical text form, without the newline. */
    public String line(int i) {
        return windowStart[i] + "," + YsbEvent.hex(campaign[i]) + "," + count[i];
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
