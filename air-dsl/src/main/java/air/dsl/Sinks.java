package air.dsl;

import air.runtime.api.SinkFactory;
import air.runtime.sink.CallbackSink;
import air.runtime.sink.CollectSink;
import air.runtime.sink.LinesSink;
import air.runtime.sink.LogSink;
import air.runtime.sink.PartFilesSink;
import air.runtime.sink.RollingFilesSink;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;

/** Built-in sinks. */
public final class Sinks {

    private Sinks() {
    }

    /** Collects into a list, read with {@link CollectSink#items()} after the job ends. */
    public static <T> CollectSink<T> collect() {
        return new CollectSink<>();
    }

    /** Calls {@code callback} for every record, one call at a time. */
    public static <T> SinkFactory<T> callback(Consumer<? super T> callback) {
        return new CallbackSink<>(Objects.requireNonNull(callback, "Sinks.callback(callback): callback is null"));
    }

    /** Prints {@code toString()} of every record to standard output, one line each. */
    public static <T> SinkFactory<T> print() {
        return LinesSink.toStdout("", String::valueOf);
    }

    /** Each record as {@code prefix + formatFn(record)} on standard output, one line each. */
    public static <T> SinkFactory<T> print(String prefix, Function<? super T, String> formatFn) {
        Objects.requireNonNull(prefix, "Sinks.print(prefix, formatFn): prefix is null");
        Objects.requireNonNull(formatFn, "Sinks.print(prefix, formatFn): formatFn is null");
        return LinesSink.toStdout(prefix, formatFn);
    }

    /** Logs every record at INFO through SLF4J under {@code loggerName}. */
    public static <T> SinkFactory<T> log(String loggerName) {
        Objects.requireNonNull(loggerName, "Sinks.log(loggerName): loggerName is null");
        return new LogSink<>(loggerName, String::valueOf);
    }

    /**
     * One line per record into rolling part files, {@code dir/part-<instance>-<generation>-<n>},
     * committed in two phases: a file is written hidden ({@code .part-...inprogress}) and renamed
     * into sight once the checkpoint that covers it is complete on every peer (or acknowledged by
     * the replicas), so that a reader of the directory, at any moment, sees every committed row once
     * and never a row a rollback takes back. Files roll at each checkpoint and at
     * {@link RollingFilesSink#rollAtBytes} / {@link RollingFilesSink#rollAfter}. Without checkpoints
     * or replicas a file is visible once rolled, the last at the end of input.
     */
    public static <T> RollingFilesSink<T> files(Path dir, Function<? super T, String> formatFn) {
        Objects.requireNonNull(dir, "Sinks.files(dir, formatFn): dir is null");
        Objects.requireNonNull(formatFn, "Sinks.files(dir, formatFn): formatFn is null");
        return new RollingFilesSink<>(dir, formatFn);
    }

    /**
     * One line per record into one growing part file per instance, {@code dir/part-<instance>}:
     * exactly once for a reader who reads the parts <b>once the job has ended</b> (each checkpoint
     * records the committed length; a restore cuts the part back to it; a part taken over is fenced
     * against its earlier owner). While the job runs, or after a crash that is never resumed, a part
     * may hold rows past the last checkpoint: for readers of a live directory use {@link #files}.
     */
    public static <T> PartFilesSink<T> partFiles(Path dir, Function<? super T, String> formatFn) {
        Objects.requireNonNull(dir, "Sinks.partFiles(dir, formatFn): dir is null");
        Objects.requireNonNull(formatFn, "Sinks.partFiles(dir, formatFn): formatFn is null");
        return new PartFilesSink<>(dir, formatFn);
    }

    /**
     * Writes one line per record to {@code file} (replaced), in no particular order across workers.
     * Not rollback-capable: with checkpoints or replication use {@link #files}.
     */
    public static <T> SinkFactory<T> file(Path file, Function<? super T, String> formatFn) {
        Objects.requireNonNull(file, "Sinks.file(file, formatFn): file is null");
        Objects.requireNonNull(formatFn, "Sinks.file(file, formatFn): formatFn is null");
        return LinesSink.toFile(file, formatFn);
    }
}
