package air.replication;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * The bytes of one peer's checkpoint file. Every file begins with {@code AIRCKPT} and its format
 * version: format 1 (the byte {@code '1'}, written until the version got a field of its own), then
 * {@code 'V'}, the version as an int and the run that wrote it: format 2, and format 3, whose
 * parts hold each operator's state under its stable id (the runtime's {@code PartSections})
 * instead of by its place in the pipeline. All hold the job, checkpoint, peer and peer count, the
 * named parts, and end with a CRC32C of the rest. Only format 3 is read: the parts of formats 1
 * and 2 cannot be matched to operators, and a format this code does not know (a newer AIR's) is
 * refused too, naming the format, never taken for damage.
 */
final class CheckpointFile {

    /** The format {@link #encode} writes. */
    static final int FORMAT = 3;
    private static final byte[] MAGIC = "AIRCKPT".getBytes(StandardCharsets.US_ASCII);
    private static final byte FORMAT_1 = '1';
    private static final byte VERSIONED = 'V';
    /** Larger than any real checkpoint file: a length beyond it means the file is damaged. */
    private static final int MAX_PART_BYTES = Integer.MAX_VALUE - 64;

    private CheckpointFile() {
    }

    /** What a file holds, once its checks passed. */
    record Contents(int format, String run, Map<String, byte[]> parts) { }

    /** A file whose checks fail: damaged, partly written, or not the checkpoint asked for. */
    static final class DamagedFile extends Exception {
        private static final long serialVersionUID = 1L;

        DamagedFile(String problem) {
            super(problem);
        }
    }

    /** A file in a format this code cannot read: written by a newer AIR, or by an older one before operator ids. */
    static final class UnknownFormat extends Exception {
        private static final long serialVersionUID = 1L;
        private final int format;

        UnknownFormat(int format) {
            super("checkpoint file format " + format + "; this AIR reads format " + FORMAT + " only"
                    + (format < FORMAT ? " (formats 1 and 2 hold operator state by its place in the pipeline, not by operator id)" : ""));
            this.format = format;
        }

        /** Whether an older AIR wrote the file (else a newer one, most likely). */
        boolean older() {
            return format >= 1 && format < FORMAT;
        }

        int format() {
            return format;
        }
    }

    static ByteBuffer encode(String job, long id, int peer, int peers, String run, Map<String, byte[]> parts) {
        byte[] jobBytes = job.getBytes(StandardCharsets.UTF_8);
        byte[] runBytes = run.getBytes(StandardCharsets.UTF_8);
        long size = MAGIC.length + 1 + 4 + 4 + runBytes.length + 4 + jobBytes.length + 8 + 4 + 4 + 4 + 8;
        Map<String, byte[]> sorted = new TreeMap<>(parts);
        for (Map.Entry<String, byte[]> e : sorted.entrySet()) {
            size += 4 + e.getKey().getBytes(StandardCharsets.UTF_8).length + 4 + e.getValue().length;
        }
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("checkpoint " + id + " of peer " + peer + " is " + size + " bytes; at most 2 GiB per peer");
        }
        ByteBuffer b = ByteBuffer.allocate((int) size);
        b.put(MAGIC).put(VERSIONED).putInt(FORMAT).putInt(runBytes.length).put(runBytes);
        b.putInt(jobBytes.length).put(jobBytes).putLong(id).putInt(peer).putInt(peers).putInt(sorted.size());
        for (Map.Entry<String, byte[]> e : sorted.entrySet()) {
            byte[] name = e.getKey().getBytes(StandardCharsets.UTF_8);
            b.putInt(name.length).put(name).putInt(e.getValue().length).put(e.getValue());
        }
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, b.position());
        b.putLong(crc.getValue());
        return b.flip();
    }

    /**
     * The format a file's header names, read before anything else so that an unknown one is
     * refused even when the rest would not pass this code's checks; -1 when there is no header.
     */
    static int formatOf(byte[] bytes) {
        if (bytes.length < MAGIC.length + 1 || !Arrays.equals(bytes, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
            return -1;
        }
        byte kind = bytes[MAGIC.length];
        if (kind == FORMAT_1) {
            return 1;
        }
        if (kind == VERSIONED && bytes.length >= MAGIC.length + 5) {
            return ByteBuffer.wrap(bytes, MAGIC.length + 1, 4).getInt();
        }
        return -1;
    }

    static Contents decode(byte[] bytes, String job, long id, int peer, int peers) throws DamagedFile, UnknownFormat {
        int format = formatOf(bytes);
        if (format == -1) {
            throw new DamagedFile(bytes.length < MAGIC.length + 8 ? "only " + bytes.length + " bytes (partly written?)"
                    : "not an AIR checkpoint file (no AIRCKPT header)");
        }
        if (format != FORMAT) {
            throw new UnknownFormat(format);
        }
        if (bytes.length < MAGIC.length + 1 + 8) {
            throw new DamagedFile("only " + bytes.length + " bytes (partly written?)");
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 8);
        ByteBuffer b = ByteBuffer.wrap(bytes);
        if (b.getLong(bytes.length - 8) != crc.getValue()) {
            throw new DamagedFile("checksum mismatch (damaged or partly written)");
        }
        b.limit(bytes.length - 8);
        b.position(MAGIC.length + 1);
        try {
            b.getInt(); // the version, read above
            String run = new String(bytes(b, 4096), StandardCharsets.UTF_8);
            String fileJob = new String(bytes(b, 4096), StandardCharsets.UTF_8);
            long fileId = b.getLong();
            int filePeer = b.getInt();
            int filePeers = b.getInt();
            if (!fileJob.equals(job) || fileId != id || filePeer != peer || filePeers != peers) {
                throw new DamagedFile("holds job " + fileJob + " checkpoint " + fileId + " of peer " + filePeer + "/" + filePeers
                        + ", expected " + job + " checkpoint " + id + " of peer " + peer + "/" + peers);
            }
            int count = b.getInt();
            if (count < 0 || count > b.remaining() / 8) {
                throw new DamagedFile("claims " + count + " parts");
            }
            Map<String, byte[]> parts = new LinkedHashMap<>();
            for (int i = 0; i < count; i++) {
                String name = new String(bytes(b, 4096), StandardCharsets.UTF_8);
                parts.put(name, bytes(b, MAX_PART_BYTES));
            }
            if (b.hasRemaining()) {
                throw new DamagedFile(b.remaining() + " stray bytes after the last part");
            }
            return new Contents(format, run, parts);
        } catch (BufferUnderflowException e) {
            throw new DamagedFile("ends in the middle of a part");
        }
    }

    private static byte[] bytes(ByteBuffer b, int max) throws DamagedFile {
        int n = b.getInt();
        if (n < 0 || n > max || n > b.remaining()) {
            throw new DamagedFile("a length of " + n + " bytes with " + b.remaining() + " left");
        }
        byte[] out = new byte[n];
        b.get(out);
        return out;
    }
}
