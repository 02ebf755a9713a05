package air.runtime.sink;

import air.runtime.api.CheckpointedSinkWriter;
import air.runtime.api.OwnerToken;
import air.runtime.api.SinkFactory;
import air.runtime.api.SinkWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * One line per record into a part file per sink instance, {@code DIR/part-<instance>}, exactly
 * once under checkpoints and replication: a checkpoint flushes the instance's lines, forces them
 * to disk and records the file's length (what it commits); a restore cuts the file back to that
 * length and appends from there, so lines written after the checkpoint are never seen twice. A
 * fresh start replaces the file; the first run ever of a checkpointed job refuses to start over
 * part files with lines in them ({@link #earlierOutput}: output of an earlier run) unless asked to
 * start afresh. Read the parts once the job has ended (their lines together, in no
 * particular order across instances). A peer that restores another's instance (a restart on
 * another machine, a replica taking over) needs the directory on a shared file system; a part file
 * shorter than its checkpoint says is an error naming it. Every write, commit and restore of an
 * exactly-once job's part happens while its writer still holds the part's {@link OwnerToken}
 * (kept in {@code DIR/.owners/part-N}, under a file lock): a peer that was declared lost and taken
 * over can never write after its successor claimed the part, even before it notices.
 */
public final class PartFilesSink<T> implements SinkFactory<T> {

    private static final int FLUSH_BYTES = 64 * 1024;

    private final Path dir;
    private final Function<? super T, String> format;

    public PartFilesSink(Path dir, Function<? super T, String> format) {
        this.dir = Objects.requireNonNull(dir, "dir is null");
        this.format = Objects.requireNonNull(format, "format is null");
    }

    /** The part file of sink instance {@code instance}. */
    public Path part(int instance) {
        return dir.resolve("part-" + instance);
    }

    /** The part files in the directory with lines in them, each named with its size: what a fresh start would replace. */
    @Override
    public List<String> earlierOutput() throws IOException {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<String> found = new ArrayList<>();
        try (DirectoryStream<Path> parts = Files.newDirectoryStream(dir, "part-*")) {
            for (Path p : parts) {
                if (Files.isRegularFile(p) && Files.size(p) > 0) {
                    found.add(p + " (" + Files.size(p) + " bytes)");
                }
            }
        }
        Collections.sort(found);
        return found;
    }

    /** Deletes every part file in the directory (a run asked to start afresh), so that none of an earlier run stays beside the new ones. */
    @Override
    public void discardEarlierOutput() throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        for (Path d : List.of(dir, OwnerFile.directoryOf(dir))) {
            if (!Files.isDirectory(d)) {
                continue;
            }
            try (DirectoryStream<Path> parts = Files.newDirectoryStream(d, "part-*")) {
                for (Path p : parts) {
                    if (Files.isRegularFile(p)) {
                        Files.deleteIfExists(p);
                    }
                }
            }
        }
    }

    @Override
    public SinkWriter<T> open(int instance, int parallelism) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir + ": " + e.getMessage(), e);
        }
        return new PartWriter(part(instance));
    }

    /** One instance's part file; opened at the first write, snapshot or restore. */
    private final class PartWriter implements CheckpointedSinkWriter<T> {
        private final Path file;
        private final OwnerFile ownerFile;
        /** Null until claimed: a job without checkpoints or replicas writes unfenced. */
        private OwnerToken owner;
        private final StringBuilder buffer = new StringBuilder();
        private FileChannel channel;
        /** Set by close: the part is complete at this length (a finished tasklet's last state still snapshots it). */
        private long closedAt = -1;

        PartWriter(Path file) {
            this.file = file;
            this.ownerFile = new OwnerFile(file);
        }

        @Override
        public void claim(OwnerToken token) {
            ownerFile.claim(token);
            owner = token;
        }

        /** Runs {@code action} as this part's owner (checked under the owner file's lock), or plainly when unfenced. */
        private void asOwner(Runnable action) {
            if (owner == null) {
                action.run();
            } else {
                ownerFile.whileOwner(owner, action);
            }
        }

        private FileChannel channel() {
            if (channel == null) {
                channel = openAt(-1);
            }
            return channel;
        }

        /** Opens the part file, replaced ({@code length} -1) or cut back to {@code length} bytes. */
        private FileChannel openAt(long length) {
            try {
                if (length < 0) {
                    return FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
                }
                FileChannel c = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                if (c.size() < length) {
                    long found = c.size();
                    c.close();
                    throw new IllegalStateException(file + " holds " + found + " bytes but its checkpoint committed " + length
                            + ": the file was lost or cut, or lives on another machine's disk (use a shared file system)");
                }
                c.truncate(length);
                c.position(length);
                return c;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open " + file + ": " + e.getMessage(), e);
            }
        }

        @Override
        public void write(T item) {
            buffer.append(format.apply(item)).append('\n');
            if (buffer.length() >= FLUSH_BYTES) {
                flush();
            }
        }

        private void flush() {
            if (buffer.isEmpty()) {
                asOwner(this::channel); // opening a part replaces it: only its owner may
                return;
            }
            ByteBuffer bytes = StandardCharsets.UTF_8.encode(buffer.toString());
            buffer.setLength(0);
            asOwner(() -> {
                try {
                    FileChannel c = channel();
                    while (bytes.hasRemaining()) {
                        c.write(bytes);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot write to " + file + ": " + e.getMessage(), e);
                }
            });
        }

        /** Commits what was written so far: flushed, forced to disk, its length recorded. */
        @Override
        public byte[] snapshot(long checkpointId) {
            if (closedAt >= 0) {
                return ByteBuffer.allocate(8).putLong(closedAt).array();
            }
            flush();
            long[] committed = new long[1];
            asOwner(() -> {
                try {
                    channel.force(false);
                    committed[0] = channel.position();
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot commit " + file + " for checkpoint " + checkpointId + ": " + e.getMessage(), e);
                }
            });
            return ByteBuffer.allocate(8).putLong(committed[0]).array();
        }

        @Override
        public void restore(byte[] state) {
            if (state.length != 8) {
                throw new IllegalStateException(file + ": checkpointed state of " + state.length + " bytes, expected 8");
            }
            closeChannel();
            buffer.setLength(0);
            closedAt = -1;
            asOwner(() -> channel = openAt(ByteBuffer.wrap(state).getLong()));
        }

        @Override
        public void close() {
            if (closedAt >= 0) {
                return;
            }
            flush();
            try {
                channel.force(false);
                closedAt = channel.position();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot close " + file + ": " + e.getMessage(), e);
            } finally {
                closeChannel();
            }
        }

        @Override
        public void abort() {
            buffer.setLength(0);
            closeChannel();
        }

        private void closeChannel() {
            if (channel != null) {
                try {
                    channel.close();
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot close " + file + ": " + e.getMessage(), e);
                } finally {
                    channel = null;
                }
            }
        }
    }

    @Override
    public String describe() {
        return "part files in " + dir;
    }
}
