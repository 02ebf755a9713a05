package air.replication.replica;

import air.channels.FrameCodec;
import air.wire.FrameException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A copy's body (its blocks and parts, see {@link ReplicaService}) as a stream of bytes cut into
 * numbered chunks, one frame each, so that a snapshot larger than a transport's frame limit
 * ({@link FrameCodec#DEFAULT_MAX_PAYLOAD}) still travels. {@link Out} writes the body straight into
 * the chunks' frames, each after its PUT header; {@link In} reads a body back from the chunks' data,
 * releasing each chunk once read, and refuses a short or inconsistent body naming the sender.
 */
final class Chunks {

    /**
     * Data bytes per chunk unless told otherwise: well under the transports' frame limit (the
     * {@link air.channels.Transport} interface does not say a transport's own limit), and small
     * enough that a chunk never holds a replica link for long.
     */
    static final int DEFAULT_BYTES = 8 << 20;
    /** A PUT frame before its chunk's data: kind, job, view, checkpoint, mode, chunk index, chunk count, data length. */
    static final int HEADER_BYTES = 1 + 8 + 8 + 8 + 1 + 4 + 4 + 4;
    /** The most data bytes a chunk may carry: its frame stays within the transports' default limit. */
    static final int MAX_BYTES = FrameCodec.DEFAULT_MAX_PAYLOAD - HEADER_BYTES;

    private Chunks() {
    }

    /** Writes a chunk's PUT header, up to and including its data length. */
    @FunctionalInterface
    interface Header {
        void write(ByteBuffer frame, int index, int count, int dataBytes);
    }

    /** The chunks a body of {@code bodyBytes} needs (at least one, also for an empty body). */
    static long count(long bodyBytes, int chunkBytes) {
        return Math.max(1, (bodyBytes + chunkBytes - 1) / chunkBytes);
    }

    /** Writes a body of a known size across the frames of its chunks. */
    static final class Out {

        private final long bodyBytes;
        private final int chunkBytes;
        private final int count;
        private final Header header;
        private final List<ByteBuffer> frames = new ArrayList<>();
        private ByteBuffer current;
        private long written;

        /** {@code bodyBytes} must be exactly what is written; {@link #count} of it must fit an int. */
        Out(long bodyBytes, int chunkBytes, Header header) {
            long n = count(bodyBytes, chunkBytes);
            if (n > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(bodyBytes + " bytes need " + n + " chunks of " + chunkBytes + " bytes");
            }
            this.bodyBytes = bodyBytes;
            this.chunkBytes = chunkBytes;
            this.count = (int) n;
            this.header = header;
            if (bodyBytes == 0) {
                next();
            }
        }

        Out putInt(int v) {
            if (room() >= 4) {
                current.putInt(v);
                written += 4;
                return this;
            }
            return putRaw(new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v});
        }

        /** A length-prefixed byte array, as {@link In#getBytes} reads it. */
        Out putBytes(byte[] b) {
            return putInt(b.length).putRaw(b);
        }

        private Out putRaw(byte[] b) {
            int off = 0;
            while (off < b.length) {
                int n = Math.min(room(), b.length - off);
                current.put(b, off, n);
                off += n;
                written += n;
            }
            return this;
        }

        /** Room in the current chunk, starting the next when it is full. */
        private int room() {
            if (current == null || !current.hasRemaining()) {
                next();
            }
            return current.remaining();
        }

        private void next() {
            if (frames.size() == count) {
                throw new IllegalStateException("body longer than the " + bodyBytes + " bytes announced");
            }
            int index = frames.size();
            int data = (int) Math.min(chunkBytes, bodyBytes - (long) index * chunkBytes);
            current = ByteBuffer.allocate(HEADER_BYTES + data);
            header.write(current, index, count, data);
            if (current.position() != HEADER_BYTES) {
                throw new IllegalStateException("a chunk header of " + current.position() + " bytes, not " + HEADER_BYTES);
            }
            frames.add(current);
        }

        /** The chunks' frames, in order, each positioned at 0. */
        List<ByteBuffer> frames() {
            if (written != bodyBytes || frames.size() != count) {
                throw new IllegalStateException(written + " bytes written in " + frames.size() + " chunk(s), " + bodyBytes + " announced in "
                        + count);
            }
            List<ByteBuffer> out = new ArrayList<>(count);
            for (ByteBuffer f : frames) {
                out.add(f.duplicate().flip());
            }
            return List.copyOf(out);
        }
    }

    /** Reads a body from its chunks' data, in order; a chunk is let go once read. Every read is bounds-checked. */
    static final class In {

        private final int peer;
        private final List<ByteBuffer> data;
        private int at;
        private long remaining;

        /** The data of every chunk of a copy from {@code peer}; this reader owns the list from now on. */
        In(int peer, List<ByteBuffer> data) {
            this.peer = peer;
            this.data = data;
            for (ByteBuffer b : data) {
                remaining += b.remaining();
            }
        }

        int getInt() {
            need(4);
            ByteBuffer b = data.get(at);
            if (b.remaining() >= 4) {
                remaining -= 4;
                int v = b.getInt();
                release();
                return v;
            }
            byte[] four = new byte[4];
            read(four);
            return ByteBuffer.wrap(four).getInt();
        }

        /** A count of items of at least {@code minBytesEach} that must all still fit in the body. */
        int getCount(int minBytesEach) {
            int n = getInt();
            if (n < 0 || (long) n * Math.max(1, minBytesEach) > remaining) {
                throw malformed("count " + n + " does not fit in the " + remaining + " bytes left of the copy");
            }
            return n;
        }

        byte[] getBytes() {
            byte[] b = new byte[getCount(1)];
            read(b);
            return b;
        }

        String getString() {
            return new String(getBytes(), StandardCharsets.UTF_8);
        }

        long remaining() {
            return remaining;
        }

        FrameException malformed(String problem) {
            return new FrameException(peer, problem);
        }

        private void read(byte[] into) {
            need(into.length);
            int off = 0;
            while (off < into.length) {
                ByteBuffer b = data.get(at);
                int n = Math.min(b.remaining(), into.length - off);
                b.get(into, off, n);
                off += n;
                remaining -= n;
                release();
            }
        }

        /** Lets go of the chunks read through, so that memory is freed as the copy's parts are made. */
        private void release() {
            while (at < data.size() && !data.get(at).hasRemaining()) {
                data.set(at++, null);
            }
        }

        private void need(int n) {
            if (remaining < n) {
                throw malformed("copy ends early: " + n + " byte(s) needed, " + remaining + " left");
            }
            release();
        }
    }
}
