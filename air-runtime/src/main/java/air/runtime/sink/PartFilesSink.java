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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
 * {@code part-<j>-at<checkpoint>-of<n>}, named after the checkpoint resumed from and the layout, so
 * that no part of one layout is ever reopened by another; parts a failed restore left behind
 * (begun from the checkpoint resumed or a later one) are deleted. The output is every
 * {@code part-*} file's lines.
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
        return new PartWriter(instance, parallelism, part(instance));
    }

    /** A part an earlier layout's instance wrote, kept at its committed length and never written again. */
    private record Sealed(String name, long length) { }

    /** A writer's checkpointed state: the checkpoint, its own part and the sealed ones. */
    private record PartState(long checkpoint, Sealed own, List<Sealed> sealed) { }

    /** Opens a part's state (a plain length was the state before parts could move between layouts). */
    private static final long NAMED = -2;
    /** A part begun by a restore onto a layout: {@code part-<instance>-at<checkpoint>-of<instances>}. */
    private static final Pattern RESCALED = Pattern.compile("part-[0-9]+-at([0-9]+)-of([0-9]+)");

    /** One instance's part file; opened at the first write, snapshot or restore. */
    private final class PartWriter implements CheckpointedSinkWriter<T> {
        private final int instance;
        private final int parallelism;
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

        PartWriter(int instance, int parallelism, Path file) {
            this.instance = instance;
            this.parallelism = parallelism;
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
                return stateOf(checkpointId, closedAt);
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
            return stateOf(checkpointId, committed[0]);
        }

        /**
         * The part's state: the checkpoint it belongs to, this writer's part (name and committed
         * length) and the sealed parts it keeps. Names are written, never derived from the
         * instance, so that a restore onto another layout knows whose part is whose.
         */
        private byte[] stateOf(long checkpointId, long length) {
            WireOut out = new WireOut(64 + 32 * sealed.size());
            out.putLong(NAMED).putLong(checkpointId).putString(file.getFileName().toString()).putLong(length).putInt(sealed.size());
            for (Sealed s : sealed) {
                out.putString(s.name()).putLong(s.length());
            }
            return out.toBytes();
        }

        /** A state as {@link #stateOf} wrote it. */
        private PartState stateFrom(byte[] state) {
            WireIn in = new WireIn(ByteBuffer.wrap(state), -1);
            if (state.length < 16 || in.getLong() != NAMED) {
                throw new IllegalStateException(file + ": a checkpointed state of " + state.length + " bytes is not a part file's");
            }
            long checkpoint = in.getLong();
            Sealed own = new Sealed(nameOf(in.getString()), in.getLong());
            List<Sealed> kept = new ArrayList<>();
            for (int n = in.getCount(12); n > 0; n--) {
                kept.add(new Sealed(nameOf(in.getString()), in.getLong()));
            }
            return new PartState(checkpoint, own, kept);
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
            PartState saved = stateFrom(state);
            closeChannel();
            buffer.setLength(0);
            closedAt = -1;
            if (saved.checkpoint() > 0) { // 0: the last state of a writer that had closed, kept for every later checkpoint
                // parts named after this checkpoint or a later one were begun by runs that resumed from it (or from one this
                // run does not resume): their lines were never committed
                dropUncommitted(saved.checkpoint(), -1);
            }
            sealed = List.copyOf(saved.sealed());
            cutSealed();
            moveTo(dir.resolve(saved.own().name()));
            asOwner(() -> channel = openAt(saved.own().length()));
        }

        /**
         * Onto another layout: the parts of the earlier instances this writer takes (theirs and the
         * ones they kept) are cut back to what their checkpoint committed and kept, sealed; this
         * writer writes a new part, {@code part-<instance>-at<checkpoint>-of<instances>}, replacing
         * one a failed run of this layout may have left under that name. Parts another layout
         * began from this checkpoint, or any layout from a later one, hold nothing committed and
         * are deleted.
         */
        @Override
        public void restoreRescaled(long checkpointId, List<List<byte[]>> earlier) {
            List<Sealed> kept = new ArrayList<>();
            for (List<byte[]> chain : earlier) {
                PartState saved = stateFrom(chain.get(chain.size() - 1)); // whole in every checkpoint: the newest is all of it
                kept.addAll(saved.sealed());
                kept.add(saved.own());
            }
            closeChannel();
            buffer.setLength(0);
            closedAt = -1;
            dropUncommitted(checkpointId, parallelism);
            sealed = List.copyOf(kept);
            cutSealed();
            moveTo(dir.resolve("part-" + instance + "-at" + checkpointId + "-of" + parallelism));
        }

        /**
         * Deletes the parts begun by a restore onto a layout from checkpoint {@code checkpoint} or a
         * later one, except, with {@code layout} > 0, those of this layout from {@code checkpoint}
         * itself (this run's own, which each of its writers replaces).
         */
        private void dropUncommitted(long checkpoint, int layout) {
            try (DirectoryStream<Path> parts = Files.newDirectoryStream(dir, "part-*-at*-of*")) {
                for (Path p : parts) {
                    Matcher m = RESCALED.matcher(p.getFileName().toString());
                    if (!m.matches()) {
                        continue;
                    }
                    long at = Long.parseLong(m.group(1));
                    int of = Integer.parseInt(m.group(2));
                    if (at > checkpoint || at == checkpoint && of != layout) {
                        Files.deleteIfExists(p);
                    }
                }
            } catch (NoSuchFileException e) {
                // no directory yet: nothing to drop
            } catch (IOException e) {
                throw new UncheckedIOException("cannot list the parts in " + dir + ": " + e.getMessage(), e);
            }
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
