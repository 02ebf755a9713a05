package air.runtime.sink;

import air.runtime.api.CheckpointedSinkWriter;
import air.runtime.api.OwnerToken;
import air.runtime.api.SinkFactory;
import air.runtime.api.SinkWriter;
import air.wire.WireIn;
import air.wire.WireOut;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
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
 *
 * <p>Restored onto another layout (other peers or workers), writer {@code j} takes the parts of the
 * earlier instances {@code i} with {@code i mod n == j}: each is cut back to its committed length
 * and <b>sealed</b> (kept, never written again, recorded in {@code j}'s checkpoints so that a later
 * restore cuts it again and a later rescale hands it on), and {@code j} writes a new part,
 * {@code part-<j>-<checkpoint>}, named after the checkpoint resumed from, so that no part of one
 * layout is ever reopened by another. The output is every {@code part-*} file's lines.
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
        return new PartWriter(instance, part(instance));
    }

    /** A part an earlier layout's instance wrote, kept at its committed length and never written again. */
    private record Sealed(String name, long length) { }

    /** Marks a part's state that names its files (after a restore onto another layout); a plain state is the length alone. */
    private static final long NAMED = -2;

    /** One instance's part file; opened at the first write, snapshot or restore. */
    private final class PartWriter implements CheckpointedSinkWriter<T> {
        private final int instance;
        private Path file;
        private OwnerFile ownerFile;
        /** The earlier layouts' parts this writer keeps (after a restore onto another layout); empty before. */
        private List<Sealed> sealed = List.of();
        /** Null until claimed: a job without checkpoints or replicas writes unfenced. */
        private OwnerToken owner;
        private final StringBuilder buffer = new StringBuilder();
        private FileChannel channel;
        /** Set by close: the part is complete at this length (a finished tasklet's last state still snapshots it). */
        private long closedAt = -1;

        PartWriter(int instance, Path file) {
            this.instance = instance;
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

        /** Commits what was written so far: flushed, forced to disk, its length recorded (with the parts it keeps, if any). */
        @Override
        public byte[] snapshot(long checkpointId) {
            if (closedAt >= 0) {
                return stateOf(closedAt);
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
            return stateOf(committed[0]);
        }

        /** The committed length alone while this writer writes its first part and keeps none; else its part's name, length and the sealed parts. */
        private byte[] stateOf(long length) {
            if (sealed.isEmpty() && file.equals(part(instance))) {
                return ByteBuffer.allocate(8).putLong(length).array();
            }
            WireOut out = new WireOut(64 + 32 * sealed.size());
            out.putLong(NAMED).putString(file.getFileName().toString()).putLong(length).putInt(sealed.size());
            for (Sealed s : sealed) {
                out.putString(s.name()).putLong(s.length());
            }
            ByteBuffer b = out.buffer();
            byte[] bytes = new byte[b.remaining()];
            b.get(bytes);
            return bytes;
        }

        /** A state as {@link #stateOf} wrote it: its own part (as the last entry) after the sealed ones. */
        private List<Sealed> partsOf(byte[] state) {
            if (state.length == 8) {
                return List.of(new Sealed(part(instance).getFileName().toString(), ByteBuffer.wrap(state).getLong()));
            }
            WireIn in = new WireIn(ByteBuffer.wrap(state), -1);
            if (state.length < 8 || in.getLong() != NAMED) {
                throw new IllegalStateException(file + ": checkpointed state of " + state.length + " bytes is not a part's");
            }
            Sealed own = new Sealed(nameOf(in.getString()), in.getLong());
            List<Sealed> parts = new ArrayList<>();
            for (int n = in.getCount(12); n > 0; n--) {
                parts.add(new Sealed(nameOf(in.getString()), in.getLong()));
            }
            parts.add(own);
            return parts;
        }

        /** A part's name from a checkpoint: a plain file name in the sink's directory, nothing else. */
        private String nameOf(String name) {
            if (!name.startsWith("part-") || name.contains("/") || name.contains("\\")) {
                throw new IllegalStateException(file + ": checkpointed part name '" + name + "' is not a part of " + dir);
            }
            return name;
        }

        @Override
        public void restore(byte[] state) {
            List<Sealed> parts = partsOf(state);
            Sealed own = parts.get(parts.size() - 1);
            closeChannel();
            buffer.setLength(0);
            closedAt = -1;
            sealed = List.copyOf(parts.subList(0, parts.size() - 1));
            cutSealed();
            moveTo(dir.resolve(own.name()));
            asOwner(() -> channel = openAt(own.length()));
        }

        /**
         * Onto another layout: the parts of the earlier instances this writer takes (theirs and the
         * ones they kept) are cut back to what their checkpoint committed and kept, sealed; this
         * writer writes a new part named after {@code checkpointId}, replacing one a failed run may
         * have left under that name.
         */
        @Override
        public void restoreRescaled(long checkpointId, List<List<byte[]>> earlier) {
            List<Sealed> kept = new ArrayList<>();
            for (List<byte[]> chain : earlier) {
                kept.addAll(partsOf(chain.get(chain.size() - 1))); // whole in every checkpoint: the newest is all of it
            }
            closeChannel();
            buffer.setLength(0);
            closedAt = -1;
            sealed = List.copyOf(kept);
            cutSealed();
            moveTo(dir.resolve("part-" + instance + "-" + checkpointId));
        }

        /** This writer's own part is now {@code part}: claimed with this writer's token, opened (replaced) at the first write. */
        private void moveTo(Path part) {
            if (!part.equals(file)) {
                file = part;
                ownerFile = new OwnerFile(part);
                if (owner != null) {
                    ownerFile.claim(owner);
                }
            }
        }

        /** Cuts every sealed part back to its committed length, as its owner: what was written after that checkpoint goes. */
        private void cutSealed() {
            for (Sealed s : sealed) {
                Path p = dir.resolve(s.name());
                OwnerFile o = new OwnerFile(p);
                Runnable cut = () -> {
                    try (FileChannel c = FileChannel.open(p, StandardOpenOption.WRITE)) {
                        if (c.size() < s.length()) {
                            throw new IllegalStateException(p + " holds " + c.size() + " bytes but its checkpoint committed " + s.length()
                                    + ": the file was lost or cut, or lives on another machine's disk (use a shared file system)");
                        }
                        c.truncate(s.length());
                        c.force(false);
                    } catch (NoSuchFileException e) {
                        throw new IllegalStateException(p + " is missing but its checkpoint committed " + s.length() + " bytes of it", e);
                    } catch (IOException e) {
                        throw new UncheckedIOException("cannot cut " + p + " back: " + e.getMessage(), e);
                    }
                };
                if (owner == null) {
                    cut.run();
                } else {
                    o.claim(owner);
                    o.whileOwner(owner, cut);
                }
            }
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
