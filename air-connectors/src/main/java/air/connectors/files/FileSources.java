package air.connectors.files;

import air.runtime.api.BadRecordPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/** Where file sources begin: {@code p.readFrom(FileSources.jsonLines(dir, Click.class).watching(ofSeconds(1)))}. */
public final class FileSources {

    private FileSources() {
    }

    /** The lines of {@code path} (a file, or every file of a directory), as strings. */
    public static FileSource<String> lines(Path path) {
        return of(path, LineFormats.lines());
    }

    /** One JSON object per line, mapped onto {@code type}'s fields or record components by Jackson. */
    public static <T> FileSource<T> jsonLines(Path path, Class<T> type) {
        return of(path, LineFormats.jsonLines(type));
    }

    /** CSV with a header line in every file, its columns mapped by name onto {@code type}. */
    public static <T> FileSource<T> csv(Path path, Class<T> type) {
        return of(path, LineFormats.csv(type));
    }

    /** The lines of {@code path} decoded by {@code format} (one of {@link LineFormats} or the user's own). */
    public static <T> FileSource<T> of(Path path, LineFormat<T> format) {
        Objects.requireNonNull(path, "FileSources: path is null");
        Objects.requireNonNull(format, "FileSources: format is null");
        return new FileSource<>(path.toAbsolutePath().normalize(), format, null, Duration.ZERO, FileSource.DEFAULT_MAX_LINE_BYTES,
                BadRecordPolicy.fail());
    }
}
