package air.checkpoint.files;

import air.channels.MeshAuth;
import java.io.IOException;
import java.io.InputStream;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The bytes of one peer's checkpoint file. Every file begins with {@code AIRCKPT} and its format
 * version: format 1 (the byte {@code '1'}, written until the version got a field of its own), then
 * {@code 'V'}, the version as an int and the run that wrote it: format 2, format 3, whose parts
 * hold each operator's state under its stable id (the runtime's {@code PartSections}) instead of
 * by its place in the pipeline, and format 4, which adds the checkpoint's <b>base</b> to the
 * header: the whole checkpoint its chain starts from, the checkpoint itself when it is whole,
 * else an older one, and then the file holds only the changes since the checkpoint before. All
 * hold the job, checkpoint, peer and peer count, the named parts, and end with a CRC32C of the
 * rest. Format 5 is format 4 signed: after the CRC, an HMAC-SHA256 of every byte before it under
 * the world's {@link CheckpointKey} ({@link FileSeal}), written when the world has a secret; a
 * world with a secret restores signed files only, and refuses a file without a MAC as one whose
 * MAC does not match (damage, like a CRC mismatch): anyone who can write the directory could
 * otherwise hand a restore, and Kryo, bytes of their making. Without a secret, files are format 4
 * as before and a MAC is not checked. Only formats 4 and 5 are read: the parts of formats 1 and 2
 * cannot be matched to operators, a file of format 3 cannot say whether it is whole, and a format
 * this code does not know (a newer AIR's) is refused too, naming the format, never taken for
 * damage. The base sits in the header, before the parts, so that {@link #header} can tell which
 * checkpoints a file needs without reading the whole file (pruning asks that after every write).
 */
final class CheckpointFile {

    /** The format {@link #write} writes without a key. */
    static final int FORMAT = 4;
    /** The format {@link #write} writes with a key: {@link #FORMAT} and a MAC after its CRC. */
    static final int SIGNED = 5;
    /** What every refusal of a file's MAC (or of a file without one, under a key) begins with. */
    static final String NOT_OURS = "not written under this world's secret, or altered";
    /** The most bytes handed to one channel write ({@link #writeAll}). */
    static final int SLICE_BYTES = 256 << 10;
    private static final byte[] MAGIC = "AIRCKPT".getBytes(StandardCharsets.US_ASCII);
    private static final byte FORMAT_1 = '1';
    private static final byte VERSIONED = 'V';
    /** Longer than any real run id or job name: a length beyond it means the file is damaged. */
    private static final int MAX_NAME_BYTES = 4096;
    /** Larger than any real checkpoint file: a length beyond it means the file is damaged. */
    private static final int MAX_PART_BYTES = Integer.MAX_VALUE - 64;
    /** The most bytes a header takes, up to and including the base: what {@link #header} reads of a file. */
    private static final int MAX_HEADER_BYTES = MAGIC.length + 1 + 4 + 2 * (4 + MAX_NAME_BYTES) + 8 + 4 + 4 + 8;

    private CheckpointFile() {
    }

    /**
     * What a file's header says, before its parts: the checkpoint {@link #id} of {@link #peer} of
     * {@link #peers}, and the {@link #base} its chain starts from ({@code base == id}: whole).
     */
    record Header(int format, String run, String job, long id, int peer, int peers, long base) { }

    /** What a file holds, once its checks passed: {@link #parts} are whole unless {@link #base} is older than the checkpoint. */
    record Contents(int format, String run, long base, Map<String, byte[]> parts) { }

    /** A file whose checks fail: damaged, partly written, or not the checkpoint asked for. */
    static final class DamagedFile extends Exception {
        private static final long serialVersionUID = 1L;

        DamagedFile(String problem) {
            super(problem);
        }
    }

    /** A file in a format this code cannot read: written by a newer AIR, or by an older one (before operator ids, or chains). */
    static final class UnknownFormat extends Exception {
        private static final long serialVersionUID = 1L;
        private final int format;

        UnknownFormat(int format) {
            super("checkpoint file format " + format + "; this AIR reads formats " + FORMAT + " and " + SIGNED + " only" + why(format));
            this.format = format;
        }

        private static String why(int format) {
            if (format == 1 || format == 2) {
                return " (formats 1 and 2 hold operator state by its place in the pipeline, not by operator id)";
            }
            if (format == 3) {
                return " (format 3 has no chains: its files do not record the base checkpoint a restore needs)";
            }
            return "";
        }

        /** Whether an older AIR wrote the file (else a newer one, most likely). */
        boolean older() {
            return format >= 1 && format < FORMAT;
        }

        int format() {
            return format;
        }
    }

    /**
     * Writes the file of {@code peer}'s checkpoint {@code id}, whose chain starts from {@code base}
     * (at most {@code id}; {@code id} itself when {@code parts} are whole), to {@code ch}: the header,
     * each part (name, length, bytes, by name) and the checksum of all of it, then, when {@code key}
     * {@linkplain CheckpointKey#signs signs}, the MAC. The parts go out as they are, with the seal
     * computed on the way, so that a large checkpoint is not first copied into a file-sized buffer.
     */
    static void write(WritableByteChannel ch, String job, long id, long base, int peer, int peers, String run, Map<String, byte[]> parts,
            CheckpointKey key) throws IOException {
        if (base > id) {
            throw new IllegalArgumentException("checkpoint " + id + " of peer " + peer + " cannot start a chain from a newer one, " + base);
        }
        byte[] jobBytes = job.getBytes(StandardCharsets.UTF_8);
        byte[] runBytes = run.getBytes(StandardCharsets.UTF_8);
        int headerSize = MAGIC.length + 1 + 4 + 4 + runBytes.length + 4 + jobBytes.length + 8 + 4 + 4 + 8 + 4;
        boolean signed = key.signs();
        long size = headerSize + FileSeal.bytes(signed);
        Map<String, byte[]> sorted = new TreeMap<>(parts);
        for (Map.Entry<String, byte[]> e : sorted.entrySet()) {
            size += 4 + e.getKey().getBytes(StandardCharsets.UTF_8).length + 4 + e.getValue().length;
        }
        if (size > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("checkpoint " + id + " of peer " + peer + " is " + size + " bytes; at most 2 GiB per peer");
        }
        ByteBuffer header = ByteBuffer.allocate(headerSize);
        header.put(MAGIC).put(VERSIONED).putInt(signed ? SIGNED : FORMAT).putInt(runBytes.length).put(runBytes);
        header.putInt(jobBytes.length).put(jobBytes).putLong(id).putInt(peer).putInt(peers).putLong(base).putInt(sorted.size());
        FileSeal seal = FileSeal.of(signed, key);
        writeAll(ch, header.flip(), seal);
        for (Map.Entry<String, byte[]> e : sorted.entrySet()) {
            byte[] name = e.getKey().getBytes(StandardCharsets.UTF_8);
            writeAll(ch, ByteBuffer.allocate(4 + name.length + 4).putInt(name.length).put(name).putInt(e.getValue().length).flip(), seal);
            writeAll(ch, ByteBuffer.wrap(e.getValue()), seal);
        }
        ByteBuffer end = seal.end();
        while (end.hasRemaining()) {
            ch.write(end);
        }
    }

    /**
     * Adds {@code b}'s bytes to {@code seal}, then writes them all, at most {@link #SLICE_BYTES} per
     * write: a file channel copies a heap buffer into a temporary direct one of the write's size,
     * and a part of megabytes written at once took a fresh one of that size (memory the OS must
     * hand in) at every checkpoint, where slices reuse one small buffer per thread.
     */
    private static void writeAll(WritableByteChannel ch, ByteBuffer b, FileSeal seal) throws IOException {
        seal.update(b.array(), b.arrayOffset() + b.position(), b.remaining());
        int end = b.limit();
        while (b.position() < end) {
            b.limit(Math.min(end, b.position() + SLICE_BYTES));
            while (b.hasRemaining()) {
                ch.write(b);
            }
            b.limit(end);
        }
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

    /**
     * Only the header of {@code file}, which must be {@code peer}'s checkpoint {@code id} of
     * {@code job}: cheap, as it reads at most a few KiB and checks no checksum and no MAC, so a
     * damaged or forged file may pass. For deciding what to keep, never for restoring
     * ({@link #decode} is for that).
     */
    static Header header(Path file, String job, long id, int peer, int peers) throws IOException, DamagedFile, UnknownFormat {
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(MAX_HEADER_BYTES);
        }
        int format = checkFormat(bytes);
        try {
            return expected(readHeader(ByteBuffer.wrap(bytes), format), job, id, peer, peers);
        } catch (BufferUnderflowException e) {
            throw new DamagedFile("ends in its header");
        }
    }

    /**
     * Checks another peer's file without holding it: its header and its seal (under {@code key},
     * which refuses a file without a MAC), read through a small buffer. A restore checks every
     * peer's files but needs only its own parts ({@link #decode}), so a heap smaller than the whole
     * world's checkpoint still restores.
     */
    static Header verify(Path file, String job, long id, int peer, int peers, CheckpointKey key) throws IOException, DamagedFile, UnknownFormat {
        byte[] head;
        try (InputStream in = Files.newInputStream(file)) {
            head = in.readNBytes(MAX_HEADER_BYTES);
        }
        int format = checkFormat(head); // an unknown format is refused as such, never taken for damage
        requireSigned(format, key);
        FileSeal seal = FileSeal.of(format == SIGNED, key);
        int sealBytes = FileSeal.bytes(format == SIGNED);
        byte[] chunk = new byte[VERIFY_CHUNK_BYTES];
        try (InputStream in = Files.newInputStream(file)) {
            long left = Files.size(file) - sealBytes;
            if (left < MAGIC.length + 1) {
                throw new DamagedFile("only " + (left + sealBytes) + " bytes (partly written?)");
            }
            while (left > 0) {
                int n = in.read(chunk, 0, (int) Math.min(chunk.length, left));
                if (n < 0) {
                    throw new DamagedFile("shorter than when it was opened");
                }
                seal.update(chunk, 0, n);
                left -= n;
            }
            seal.check(in.readNBytes(sealBytes));
        }
        try {
            return expected(readHeader(ByteBuffer.wrap(head), format), job, id, peer, peers);
        } catch (BufferUnderflowException e) {
            throw new DamagedFile("ends in its header");
        }
    }

    /** The buffer {@link #verify} reads a file through. */
    private static final int VERIFY_CHUNK_BYTES = 256 << 10;

    /**
     * The contents of a file read whole, once its seal passed under {@code key} (which refuses a
     * file without a MAC) and its header names the checkpoint asked for.
     */
    static Contents decode(byte[] bytes, String job, long id, int peer, int peers, CheckpointKey key) throws DamagedFile, UnknownFormat {
        int format = checkFormat(bytes);
        requireSigned(format, key);
        int sealBytes = FileSeal.bytes(format == SIGNED);
        if (bytes.length < MAGIC.length + 1 + sealBytes) {
            throw new DamagedFile("only " + bytes.length + " bytes (partly written?)");
        }
        FileSeal seal = FileSeal.of(format == SIGNED, key);
        seal.update(bytes, 0, bytes.length - sealBytes);
        seal.check(Arrays.copyOfRange(bytes, bytes.length - sealBytes, bytes.length));
        ByteBuffer b = ByteBuffer.wrap(bytes);
        b.limit(bytes.length - sealBytes);
        try {
            Header header = expected(readHeader(b, format), job, id, peer, peers);
            int count = b.getInt();
            if (count < 0 || count > b.remaining() / 8) {
                throw new DamagedFile("claims " + count + " parts");
            }
            Map<String, byte[]> parts = new LinkedHashMap<>();
            for (int i = 0; i < count; i++) {
                String name = new String(bytes(b, MAX_NAME_BYTES), StandardCharsets.UTF_8);
                parts.put(name, bytes(b, MAX_PART_BYTES));
            }
            if (b.hasRemaining()) {
                throw new DamagedFile(b.remaining() + " stray bytes after the last part");
            }
            return new Contents(format, header.run(), header.base(), parts);
        } catch (BufferUnderflowException e) {
            throw new DamagedFile("ends in the middle of a part");
        }
    }

    /**
     * Refuses a file without a MAC when the world signs its files: a file written without a secret
     * (or under a launcher's secret of one run), or one whose MAC was stripped, cannot be told apart.
     */
    private static void requireSigned(int format, CheckpointKey key) throws DamagedFile {
        if (key.signs() && format != SIGNED) {
            throw new DamagedFile(NOT_OURS + ": it carries no MAC, as a run without a secret (or with one its launcher made for that run "
                    + "alone) writes. To resume from it, run as that run did, with neither " + MeshAuth.SECRET + " nor " + MeshAuth.SECRET_FILE
                    + " set; or move "
                    + "these checkpoints away to start afresh under this secret");
        }
    }

    /** The format of a file that names one, if it is {@link #FORMAT} or {@link #SIGNED}. */
    private static int checkFormat(byte[] bytes) throws DamagedFile, UnknownFormat {
        int format = formatOf(bytes);
        if (format == -1) {
            throw new DamagedFile(bytes.length < MAGIC.length + 8 ? "only " + bytes.length + " bytes (partly written?)"
                    : "not an AIR checkpoint file (no AIRCKPT header)");
        }
        if (format != FORMAT && format != SIGNED) {
            throw new UnknownFormat(format);
        }
        return format;
    }

    /** The header that follows the format field; leaves {@code b} at the part count. */
    private static Header readHeader(ByteBuffer b, int format) throws DamagedFile {
        b.position(MAGIC.length + 1 + 4);
        String run = new String(bytes(b, MAX_NAME_BYTES), StandardCharsets.UTF_8);
        String job = new String(bytes(b, MAX_NAME_BYTES), StandardCharsets.UTF_8);
        long id = b.getLong();
        int peer = b.getInt();
        int peers = b.getInt();
        long base = b.getLong();
        return new Header(format, run, job, id, peer, peers, base);
    }

    /** {@code h}, if it names the checkpoint asked for and a base no newer than it. */
    private static Header expected(Header h, String job, long id, int peer, int peers) throws DamagedFile {
        if (!h.job().equals(job) || h.id() != id || h.peer() != peer || h.peers() != peers) {
            throw new DamagedFile("holds job " + h.job() + " checkpoint " + h.id() + " of peer " + h.peer() + "/" + h.peers()
                    + ", expected " + job + " checkpoint " + id + " of peer " + peer + "/" + peers);
        }
        if (h.base() > id) {
            throw new DamagedFile("names checkpoint " + h.base() + " as the base of checkpoint " + id + ", which is older");
        }
        return h;
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
