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
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * Writes one line per record, to standard output or to a file. Each instance formats into its own
 * buffer and appends whole buffers under a lock, so lines never interleave mid-line. The lock is a
 * {@link ReentrantLock}, not a monitor: appends block on I/O on the tasklets' virtual threads, and a
 * virtual thread blocked inside a monitor pins its carrier on JDK 21 to 23.
 */
public final class LinesSink<T> implements SinkFactory<T> {

    private static final int FLUSH_CHARS = 64 * 1024;

    private final Path file;
    private final Function<? super T, String> format;
    private final String description;
    private final ReentrantLock lock = new ReentrantLock();
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
    public SinkWriter<T> open(int instance, int parallelism) {
        lock.lock();
        try {
            if (open == 0 && file != null) {
                writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
            }
            open++;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open " + file + " for writing: " + e.getMessage(), e);
        } finally {
            lock.unlock();
        }
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

    private void append(StringBuilder buffer) {
        if (buffer.isEmpty()) {
            return;
        }
        lock.lock();
        try {
            if (file == null) {
                System.out.print(buffer);
                System.out.flush();
            } else {
                writer.append(buffer);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write to " + file + ": " + e.getMessage(), e);
        } finally {
            lock.unlock();
        }
        buffer.setLength(0);
    }

    private void release() {
        lock.lock();
        try {
            if (--open == 0 && writer != null) {
                writer.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close " + file + ": " + e.getMessage(), e);
        } finally {
            if (open == 0) {
                writer = null;
            }
            lock.unlock();
        }
    }

    @Override
    public String describe() {
        return description;
    }
}
