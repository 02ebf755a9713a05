package air.runtime.sink;

import air.runtime.api.SinkFactory;
import air.runtime.api.SinkWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Function;

/**
 * Writes one line per record, to standard output or to a file. Each instance formats into its own
 * buffer and appends whole buffers under a lock, so lines never interleave mid-line.
 */
public final class LinesSink<T> implements SinkFactory<T> {

    private static final int FLUSH_CHARS = 64 * 1024;

    private final Path file;
    private final Function<? super T, String> format;
    private final String description;
    private Writer writer;
    private int open;

    private LinesSink(Path file, Function<? super T, String> format, String description) {
        this.file = file;
        this.format = Objects.requireNonNull(format, "format is null");
        this.description = description;
    }

    public static <T> LinesSink<T> toFile(Path file, Function<? super T, String> format) {
        Objects.requireNonNull(file, "file is null");
        return new LinesSink<>(file, format, "file(" + file + ")");
    }

    public static <T> LinesSink<T> toStdout(String prefix, Function<? super T, String> format) {
        Objects.requireNonNull(prefix, "prefix is null");
        return new LinesSink<>(null, item -> prefix + format.apply(item), "print");
    }

    @Override
    public synchronized SinkWriter<T> open(int instance, int parallelism) {
        if (open == 0 && file != null) {
            try {
                writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open " + file + " for writing: " + e.getMessage(), e);
            }
        }
        open++;
        StringBuilder buffer = new StringBuilder();
        return new SinkWriter<>() {
            @Override public void write(T item) {
                buffer.append(format.apply(item)).append('\n');
                if (buffer.length() >= FLUSH_CHARS) {
                    append(buffer);
                }
            }
            @Override public void close() {
                append(buffer);
                release();
            }
            @Override public void abort() {
                buffer.setLength(0);
                release();
            }
        };
    }

    private synchronized void append(StringBuilder buffer) {
        if (buffer.isEmpty()) {
            return;
        }
        if (file == null) {
            System.out.print(buffer);
            System.out.flush();
        } else {
            try {
                writer.append(buffer);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write to " + file + ": " + e.getMessage(), e);
            }
        }
        buffer.setLength(0);
    }

    private synchronized void release() {
        if (--open == 0 && writer != null) {
            try {
                writer.close();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot close " + file + ": " + e.getMessage(), e);
            } finally {
                writer = null;
            }
        }
    }

    @Override
    public String describe() {
        return description;
    }
}
