package air.runtime.impl.inbound;

import air.runtime.impl.shuffle.ShuffleItem;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.wire.WireIn;
import air.wire.WireOut;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;
import org.slf4j.LoggerFactory;

/**
 * The items of one alignment that did not fit in its memory bound, on disk in arrival order: each
 * as its shuffle encoding (the form it would have between peers) behind its length and producer.
 * Written, then read back once from the start. It is opened to be deleted on close: on Unix the
 * JDK unlinks it at once, so it never shows in its directory and even a killed JVM leaves nothing
 * behind; elsewhere {@link #close} deletes it. A failed write or read is an {@link UncheckedIOException}
 * naming the file: the instance cannot go on without the items, so the job fails (and restarts
 * from its last checkpoint, as after any failure).
 */
final class SpillFile implements AutoCloseable {

    private static final int BUFFER = 64 * 1024;
    /** Before each item: its length and its producer. */
    static final int HEADER = 8;

    private final Path path;
    private final FileChannel channel;
    private final int producers;
    private ByteBuffer writing = ByteBuffer.allocate(BUFFER);
    private ByteBuffer reading;
    /** Bytes on disk so far, and where the next read starts. */
    private long written;
    private long readAt;
    private long bytes;

    private SpillFile(Path path, FileChannel channel, int producers) {
        this.path = path;
        this.channel = channel;
        this.producers = producers;
    }

    /** A new spill file in {@code directory} for items of producers {@code 0 .. producers - 1}. */
    static SpillFile create(Path directory, int producers) {
        Path path = null;
        warnIfInMemory(directory);
        try {
            path = Files.createTempFile(directory, "air-alignment-", ".spill");
            FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    StandardOpenOption.DELETE_ON_CLOSE);
            return new SpillFile(path, channel, producers);
        } catch (IOException e) {
            if (path != null) {
                deleteQuietly(path);
            }
            throw new UncheckedIOException("barrier alignment cannot create a spill file in " + directory + ": " + e.getMessage(), e);
        }
    }

    private static final AtomicBoolean WARNED_IN_MEMORY = new AtomicBoolean();

    /** Once per JVM: spilling to a file system in RAM (tmpfs, as /tmp often is) moves the held items to memory, not disk. */
    private static void warnIfInMemory(Path directory) {
        try {
            String type = Files.getFileStore(directory).type();
            if ((type.equals("tmpfs") || type.equals("ramfs")) && WARNED_IN_MEMORY.compareAndSet(false, true)) {
                LoggerFactory.getLogger(SpillFile.class).warn("barrier alignment spills to {}, a {} file system held in memory: "
                        + "spilled items take RAM after all; give it a directory on disk (JobConfig.alignmentSpill)", directory, type);
            }
        } catch (IOException e) {
            // the file's creation reports a directory that cannot be used
        }
    }

    /** The item's encoding, or a RuntimeException when its codec cannot write it (nothing is written then). */
    static ByteBuffer encode(ShuffleItem item, ShuffleItemCodec codec) {
        WireOut out = new WireOut(ShuffleItemCodec.sizeHint(item));
        codec.write(0, item, out);
        return out.buffer();
    }

    /** Appends an item of {@code producer} that {@link #encode} gave, before the first {@link #next}. */
    void append(int producer, ByteBuffer encoded) {
        int length = encoded.remaining();
        if (writing.remaining() < HEADER + length) {
            flush();
            if (writing.capacity() < HEADER + length) {
                writing = ByteBuffer.allocate(HEADER + length);
            }
        }
        writing.putInt(length).putInt(producer).put(encoded);
        bytes += HEADER + length;
    }

    /** The next item appended, in order, decoded by its producer's codec; the caller knows how many there are. */
    ShuffleItem next(IntFunction<ShuffleItemCodec> codecOf) {
        if (reading == null) {
            flush();
            writing = null;
            reading = ByteBuffer.allocate(BUFFER).flip();
        }
        fill(HEADER);
        int length = reading.getInt();
        ShuffleItemCodec codec = codecOf.apply(reading.getInt());
        fill(length);
        ByteBuffer payload = reading.slice(reading.position(), length);
        reading.position(reading.position() + length);
        return codec.readEmbedded(new WireIn(payload, -1), producers, 1).item();
    }

    /** Bytes this file holds (what {@link #append} was given, with a length each). */
    long bytes() {
        return bytes;
    }

    Path path() {
        return path;
    }

    private void flush() {
        writing.flip();
        try {
            while (writing.hasRemaining()) {
                written += channel.write(writing, written);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("barrier alignment cannot write its spill file " + path + ": " + e.getMessage(), e);
        }
        writing.clear();
    }

    /** At least {@code n} unread bytes in {@link #reading}. */
    private void fill(int n) {
        if (reading.remaining() >= n) {
            return;
        }
        if (reading.capacity() < n) {
            reading = ByteBuffer.allocate(n).put(reading);
        } else {
            reading.compact();
        }
        try {
            while (reading.position() < n) {
                int read = channel.read(reading, readAt);
                if (read < 0) {
                    throw new IOException("ends early at byte " + readAt + " of " + written);
                }
                readAt += read;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("barrier alignment cannot read its spill file " + path + ": " + e.getMessage(), e);
        }
        reading.flip();
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            // deleted below all the same
        }
        deleteQuietly(path);
    }

    private static void deleteQuietly(Path path) {
        try {
            Files.deleteIfExists(path);
        } catch (IOException e) {
            // best effort: DELETE_ON_CLOSE (or the JVM's exit) removes it
        }
    }
}
