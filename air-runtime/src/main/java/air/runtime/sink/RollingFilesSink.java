package air.runtime.sink;

import air.runtime.api.CommittingSinkWriter;
import air.runtime.api.OwnerToken;
import air.runtime.api.SinkFactory;
import air.runtime.api.SinkWriter;
import air.wire.WireIn;
import air.wire.WireOut;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * One line per record into rolling part files, committed in two phases so that a reader of the
 * directory never sees a row that a rollback takes back. Each sink instance writes one file at a
 * time, hidden while it is written ({@code .part-<instance>-<generation>-<n>.inprogress}); the file
 * is rolled (flushed, forced to disk, closed) when it reaches {@link #rollAtBytes}, when it is
 * older than {@link #rollAfter}, and at every checkpoint (the pre-commit: the state names it).
 * Once the checkpoint is complete on every peer (or acknowledged by the replicas), the file is
 * renamed to {@code part-<instance>-<generation>-<n>}, atomically: the visible files hold every
 * committed row once. A restore commits what its checkpoint names and deletes the hidden files
 * begun after it. In a job without checkpoints or replicas each file is made visible when it is
 * rolled, and the last at the end of input.
 *
 * <p>Restored onto another layout, writer {@code j} commits and clears up for the earlier
 * instances {@code i} with {@code i mod n == j} and writes files of a new generation named after
 * the checkpoint resumed from and the layout, so that no two layouts' names meet. A peer that
 * restores another's instance needs the directory on a shared file system.
 */
public final class RollingFilesSink<T> implements SinkFactory<T> {

    /** The default size at which a file is rolled: 128 MiB. */
    public static final long DEFAULT_ROLL_BYTES = 128L << 20;
    private static final int STATE_VERSION = 1;
    private static final String FIRST_GENERATION = "g0";
    private static final long NEVER = Long.MAX_VALUE;

    private final Path dir;
    private final Function<? super T, String> format;
    private final long rollAtBytes;
    private final Duration rollAfter;
    /** {@code rollAfter} in nanoseconds, or {@code NEVER}: read at every write. */
    private final long rollAfterNanos;

    public RollingFilesSink(Path dir, Function<? super T, String> format) {
        this(dir, format, DEFAULT_ROLL_BYTES, null);
    }

    private RollingFilesSink(Path dir, Function<? super T, String> format, long rollAtBytes, Duration rollAfter) {
        this.dir = Objects.requireNonNull(dir, "dir is null");
        this.format = Objects.requireNonNull(format, "format is null");
        this.rollAtBytes = rollAtBytes;
        this.rollAfter = rollAfter;
        this.rollAfterNanos = rollAfter == null ? NEVER : rollAfter.toNanos();
    }

    /** Rolls a file once it holds {@code bytes} (default 128 MiB). */
    public RollingFilesSink<T> rollAtBytes(long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException(describe() + ".rollAtBytes(bytes): must be positive, got " + bytes);
        }
        return new RollingFilesSink<>(dir, format, bytes, rollAfter);
    }

    /** Rolls a file once it is {@code age} old, checked at each write (default: no bound by age). */
    public RollingFilesSink<T> rollAfter(Duration age) {
        if (age == null || age.isNegative() || age.isZero()) {
            throw new IllegalArgumentException(describe() + ".rollAfter(age): must be positive, got " + age);
        }
        return new RollingFilesSink<>(dir, format, rollAtBytes, age);
    }

    /** The directory written to. */
    public Path dir() {
        return dir;
    }

    @Override
    public SinkWriter<T> open(int instance, int parallelism) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
        return new Writer<>(this, instance, parallelism);
    }

    @Override
    public String describe() {
        return "rolling files in " + dir;
    }

    /** The committed part files in the directory: what a fresh start of a checkpointed job would replace. */
    @Override
    public List<String> earlierOutput() throws IOException {
        List<String> found = new ArrayList<>();
        if (Files.isDirectory(dir)) {
            try (DirectoryStream<Path> parts = Files.newDirectoryStream(dir, "part-*")) {
                for (Path p : parts) {
                    found.add(p + " (" + Files.size(p) + " bytes)");
                }
            }
        }
        return found;
    }

    /** Removes the part files, committed and hidden: the user asked to start afresh. */
    @Override
    public void discardEarlierOutput() throws IOException {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (DirectoryStream<Path> parts = Files.newDirectoryStream(dir, "{part-*,.part-*.inprogress}")) {
            for (Path p : parts) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** The writer of one instance. */
    private static final class Writer<T> implements CommittingSinkWriter<T> {

        private final RollingFilesSink<T> sink;
        private final int instance;
        private final int parallelism;
        /** Files rolled and pre-committed by a checkpoint, by that checkpoint, not yet visible (guarded by itself). */
        private final TreeMap<Long, List<String>> pending = new TreeMap<>();
        /** Files rolled since the last snapshot: the next one pre-commits them. */
        private List<String> rolled = new ArrayList<>();
        private String generation = FIRST_GENERATION;
        private long next;
        private String current;
        private FileChannel channel;
        private OutputStream out;
        private long bytes;
        private long openedNanos;
        /** Claimed by an exactly-once job: files become visible on commit, not when rolled. */
        private boolean twoPhase;
        private boolean cleared;

        Writer(RollingFilesSink<T> sink, int instance, int parallelism) {
            this.sink = sink;
            this.instance = instance;
            this.parallelism = parallelism;
        }

        private String prefix() {
            return prefix(instance, generation);
        }

        private static String prefix(int instance, String generation) {
            return "part-" + instance + "-" + generation + "-";
        }

        private Path hidden(String name) {
            return sink.dir.resolve("." + name + ".inprogress");
        }

        @Override
        public void claim(OwnerToken owner) {
            twoPhase = true;
        }

        @Override
        public void write(T item) {
            byte[] b = sink.format.apply(item).getBytes(StandardCharsets.UTF_8);
            try {
                if (out == null) {
                    begin();
                }
                out.write(b);
                out.write('\n');
                bytes += b.length + 1;
                if (bytes >= sink.rollAtBytes || sink.rollAfterNanos != NEVER && System.nanoTime() - openedNanos >= sink.rollAfterNanos) {
                    roll();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(sink.describe() + ": cannot write " + hidden(current), e);
            }
        }

        private void begin() throws IOException {
            if (!cleared) {
                clearHidden(prefix()); // left by a run that failed before its first checkpoint
                cleared = true;
            }
            current = prefix() + next++;
            if (Files.exists(sink.dir.resolve(current))) {
                throw new IllegalStateException(sink.describe() + ": " + sink.dir.resolve(current) + " is already there, the output of an "
                        + "earlier run; write to an empty directory, or start the job afresh to replace it");
            }
            channel = FileChannel.open(hidden(current), StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE);
            out = new BufferedOutputStream(Channels.newOutputStream(channel), 64 * 1024);
            bytes = 0;
            openedNanos = System.nanoTime();
        }

        /** Closes the file being written, durably; in a job without commits it becomes visible now. */
        private void roll() throws IOException {
            if (out == null) {
                return;
            }
            out.flush();
            channel.force(true);
            out.close();
            out = null;
            channel = null;
            if (twoPhase) {
                rolled.add(current);
            } else {
                publish(current);
            }
            current = null;
        }

        /** Makes {@code name} visible; already visible is fine (a commit repeated after a restore). */
        private void publish(String name) throws IOException {
            Path from = hidden(name);
            Path to = sink.dir.resolve(name);
            if (Files.exists(from)) {
                Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
            } else if (!Files.exists(to)) {
                throw new IOException(from + " is gone and " + to + " is not there: output pre-committed by a checkpoint is lost "
                        + "(was the directory changed by hand, or is it not shared between the peers?)");
            }
        }

        /** Deletes the hidden files of {@code prefix} that nothing pending names: begun after the checkpoint restored. */
        private void clearHidden(String prefix) throws IOException {
            try (DirectoryStream<Path> files = Files.newDirectoryStream(sink.dir, "." + prefix + "*.inprogress")) {
                for (Path p : files) {
                    Files.deleteIfExists(p);
                }
            }
        }

        @Override
        public byte[] snapshot(long checkpointId) {
            try {
                roll();
            } catch (IOException e) {
                throw new UncheckedIOException(sink.describe() + ": cannot pre-commit " + hidden(current) + " for checkpoint "
                        + checkpointId, e);
            }
            WireOut w = new WireOut(64);
            synchronized (pending) {
                if (!rolled.isEmpty()) {
                    pending.put(checkpointId, rolled);
                    rolled = new ArrayList<>();
                }
                w.putInt(STATE_VERSION).putInt(instance).putString(generation).putLong(next).putInt(pending.size());
                for (Map.Entry<Long, List<String>> e : pending.entrySet()) {
                    w.putLong(e.getKey()).putInt(e.getValue().size());
                    for (String name : e.getValue()) {
                        w.putString(name);
                    }
                }
            }
            return w.toBytes();
        }

        @Override
        public void commit(long checkpointId) throws IOException {
            synchronized (pending) {
                Map<Long, List<String>> due = pending.headMap(checkpointId, true);
                for (List<String> names : due.values()) {
                    for (String name : names) {
                        publish(name);
                    }
                }
                due.clear();
            }
        }

        /** A saved state: whose, its generation, next file number, pending files. */
        private record Saved(int instance, String generation, long next, List<String> pending) {
        }

        private Saved read(byte[] state) {
            WireIn in = new WireIn(ByteBuffer.wrap(state), -1);
            int version = in.getInt();
            if (version != STATE_VERSION) {
                throw new IllegalStateException(sink.describe() + ": a saved state of version " + version + ", this writer reads "
                        + STATE_VERSION);
            }
            int owner = in.getInt();
            String gen = in.getString();
            long n = in.getLong();
            List<String> names = new ArrayList<>();
            for (int c = in.getCount(12); c > 0; c--) {
                in.getLong();
                for (int k = in.getCount(4); k > 0; k--) {
                    names.add(in.getString());
                }
            }
            return new Saved(owner, gen, n, names);
        }

        @Override
        public void restore(byte[] state) {
            Saved saved = read(state);
            try {
                for (String name : saved.pending()) {
                    publish(name); // its checkpoint is complete: it is being restored
                }
                clearHidden(prefix(saved.instance(), saved.generation()));
            } catch (IOException e) {
                throw new UncheckedIOException(sink.describe() + ": cannot restore instance " + instance + ": " + e.getMessage(), e);
            }
            generation = saved.generation();
            next = saved.next();
            cleared = true;
        }

        @Override
        public void restoreRescaled(long checkpointId, List<List<byte[]>> earlier) {
            try {
                for (List<byte[]> chain : earlier) {
                    if (chain.isEmpty()) {
                        continue;
                    }
                    Saved saved = read(chain.get(chain.size() - 1)); // whole states only: the newest holds everything pending
                    for (String name : saved.pending()) {
                        publish(name);
                    }
                    clearHidden(prefix(saved.instance(), saved.generation()));
                }
                generation = "c" + checkpointId + "n" + parallelism;
                next = 0;
                cleared = false; // the new generation's hidden files of a failed restore go at the first file
            } catch (IOException e) {
                throw new UncheckedIOException(sink.describe() + ": cannot restore instance " + instance + " onto a new layout: "
                        + e.getMessage(), e);
            }
        }

        @Override
        public void close() {
            try {
                roll();
                synchronized (pending) {
                    for (List<String> names : pending.values()) {
                        for (String name : names) {
                            publish(name);
                        }
                    }
                    pending.clear();
                    for (String name : rolled) {
                        publish(name);
                    }
                    rolled.clear();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(sink.describe() + ": cannot commit its last files at the end of input", e);
            }
        }

        @Override
        public void abort() {
            if (out != null) {
                try {
                    out.close(); // stays hidden: a restore deletes it
                } catch (IOException ignored) {
                    // nothing to keep
                }
                out = null;
                channel = null;
            }
        }

        @Override
        public String toString() {
            return "RollingFilesSink.Writer[" + sink.dir + ", instance " + instance + "]";
        }
    }
}
