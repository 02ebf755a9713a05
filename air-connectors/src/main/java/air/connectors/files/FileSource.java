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
 * then given to {@code Pipeline.readFrom}. Each file is a split, read whole by one instance (or,
 * with {@link #byteRanges}, each range of a file); the position of every split (byte offset and
 * line number) lives in the job's checkpoints and replica copies, so a rollback or a restore, on the
 * same or another number of instances, reads each line once. By default it reads the files there at
 * the start, then ends; lines that do not decode fail the job naming {@code file:line}.
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
    /** The length of the ranges a file is read in; 0: whole. */
    private final long rangeBytes;

    FileSource(Path path, LineFormat<T> format, String glob, Duration watch, int maxLineBytes, BadRecordPolicy badRecords) {
        this(path, format, glob, watch, maxLineBytes, badRecords, 0);
    }

    private FileSource(Path path, LineFormat<T> format, String glob, Duration watch, int maxLineBytes, BadRecordPolicy badRecords,
                       long rangeBytes) {
        this.path = path;
        this.format = format;
        this.glob = glob;
        this.watch = watch;
        this.maxLineBytes = maxLineBytes;
        this.badRecords = badRecords;
        this.rangeBytes = rangeBytes;
    }

    /** Only the files whose names match {@code glob} ({@code *.json}, {@code part-*}); a directory only. */
    public FileSource<T> glob(String glob) {
        Objects.requireNonNull(glob, "glob");
        path.getFileSystem().getPathMatcher("glob:" + glob); // a bad pattern fails here, naming itself
        return new FileSource<>(path, format, glob, watch, maxLineBytes, badRecords, rangeBytes);
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
        if (rangeBytes > 0) {
            throw new IllegalArgumentException(describe() + ".watching(interval): a source read in byte ranges (byteRanges) cannot "
                    + "be watched: a followed file grows past its ranges; read a watched directory's files whole");
        }
        return new FileSource<>(path, format, glob, interval, maxLineBytes, badRecords, rangeBytes);
    }

    /** The longest line read (default 1 MiB); a longer one is a bad record, its first KiB kept. */
    public FileSource<T> maxLineBytes(int bytes) {
        if (bytes < 1 || bytes > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException(describe() + ".maxLineBytes(bytes): must be positive, got " + bytes);
        }
        return new FileSource<>(path, format, glob, watch, bytes, badRecords, rangeBytes);
    }

    /**
     * Reads every file in ranges of {@code bytes} (the last one shorter), each a split of its own,
     * so that the instances share a few large files instead of one reading each: a range's reader
     * takes the lines that begin in it. Made for files that do not change while the job reads them
     * (every peer must list the same size); refused with {@link #watching}. A bad line in a range
     * after a file's first is named {@code file@offset} (the offset it begins at), not
     * {@code file:line}. Positions saved by a job that read files whole do not resume a job that
     * reads them in ranges, nor the other way round: the split ids differ.
     */
    public FileSource<T> byteRanges(long bytes) {
        if (bytes < 1) {
            throw new IllegalArgumentException(describe() + ".byteRanges(bytes): must be positive, got " + bytes);
        }
        if (!watch.isZero()) {
            throw new IllegalArgumentException(describe() + ".byteRanges(bytes): a watched source follows growing files and cannot "
                    + "read them in ranges; read them whole or do not watch");
        }
        return new FileSource<>(path, format, glob, watch, maxLineBytes, badRecords, bytes);
    }

    /** What happens to a line that does not decode, is not UTF-8 or is too long (default {@link BadRecordPolicy#fail()}). */
    public FileSource<T> onBadRecord(BadRecordPolicy policy) {
        return new FileSource<>(path, format, glob, watch, maxLineBytes, Objects.requireNonNull(policy, "policy"), rangeBytes);
    }

    @Override
    public SourceReader<T> createReader(int instance, int parallelism) {
        return new SplitSource<>(new FileSplits<>(path, glob, format, watch, maxLineBytes, rangeBytes), badRecords)
                .createReader(instance, parallelism);
    }

    @Override
    public String describe() {
        return new FileSplits<>(path, glob, format, watch, maxLineBytes, rangeBytes).describe();
    }
}
