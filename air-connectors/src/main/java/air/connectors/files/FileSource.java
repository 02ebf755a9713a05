package air.connectors.files;

import air.runtime.api.BadRecordPolicy;
import air.runtime.api.SourceFactory;
import air.runtime.api.SourceReader;
import air.runtime.source.split.SplitSource;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * A source reading the lines of a file or of the files in a directory: made by
 * {@link FileSources}, set up by its methods (each returns a new source; this one is not changed),
 * then given to {@code Pipeline.readFrom}. Each file is a split, read whole by one instance; the
 * position of every file (byte offset and line number) lives in the job's checkpoints and replica
 * copies, so a rollback or a restore, on the same or another number of instances, reads each line
 * once. By default it reads the files there at the start, then ends; lines that do not decode fail
 * the job naming {@code file:line}.
 */
public final class FileSource<T> implements SourceFactory<T> {

    /** The default bound on the length of one line: 1 MiB. */
    public static final int DEFAULT_MAX_LINE_BYTES = 1 << 20;

    private final Path path;
    private final LineFormat<T> format;
    private final String glob;
    private final Duration watch;
    private final int maxLineBytes;
    private final BadRecordPolicy badRecords;

    FileSource(Path path, LineFormat<T> format, String glob, Duration watch, int maxLineBytes, BadRecordPolicy badRecords) {
        this.path = path;
        this.format = format;
        this.glob = glob;
        this.watch = watch;
        this.maxLineBytes = maxLineBytes;
        this.badRecords = badRecords;
    }

    /** Only the files whose names match {@code glob} ({@code *.json}, {@code part-*}); a directory only. */
    public FileSource<T> glob(String glob) {
        Objects.requireNonNull(glob, "glob");
        path.getFileSystem().getPathMatcher("glob:" + glob); // a bad pattern fails here, naming itself
        return new FileSource<>(path, format, glob, watch, maxLineBytes, badRecords);
    }

    /**
     * Never ends: lists the directory again every {@code interval} and reads each new file once, and
     * follows every file, reading lines appended to it (a last line once its newline is written).
     * Write a file elsewhere, or under a hidden or {@code .inprogress} name, and move it in to have
     * it read only when whole.
     */
    public FileSource<T> watching(Duration interval) {
        if (interval == null || interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException(describe() + ".watching(interval): the interval must be positive, got " + interval);
        }
        return new FileSource<>(path, format, glob, interval, maxLineBytes, badRecords);
    }

    /** The longest line read (default 1 MiB); a longer one is a bad record, its first KiB kept. */
    public FileSource<T> maxLineBytes(int bytes) {
        if (bytes < 1 || bytes > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException(describe() + ".maxLineBytes(bytes): must be positive, got " + bytes);
        }
        return new FileSource<>(path, format, glob, watch, bytes, badRecords);
    }

    /** What happens to a line that does not decode, is not UTF-8 or is too long (default {@link BadRecordPolicy#fail()}). */
    public FileSource<T> onBadRecord(BadRecordPolicy policy) {
        return new FileSource<>(path, format, glob, watch, maxLineBytes, Objects.requireNonNull(policy, "policy"));
    }

    @Override
    public SourceReader<T> createReader(int instance, int parallelism) {
        return new SplitSource<>(new FileSplits<>(path, glob, format, watch, maxLineBytes), badRecords).createReader(instance, parallelism);
    }

    @Override
    public String describe() {
        return new FileSplits<>(path, glob, format, watch, maxLineBytes).describe();
    }
}
