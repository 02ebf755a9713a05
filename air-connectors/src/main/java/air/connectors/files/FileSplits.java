package air.connectors.files;

import air.runtime.source.split.SplitContext;
import air.runtime.source.split.SplitReader;
import air.runtime.source.split.Splits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * A file, or the files of a directory, as splits: one split per file, its id the file's name
 * relative to the directory, so that every peer that sees the same directory (a shared or copied
 * one) lists the same ids. Hidden files ({@code .name}) and files still being written by an AIR
 * file sink ({@code *.inprogress}) are never listed. A watched directory is listed again every
 * interval and its files are followed: lines appended to a file are read too.
 */
final class FileSplits<T> implements Splits<T> {

    private final Path root;
    private final String glob;
    private final PathMatcher matcher;
    private final LineFormat<T> format;
    private final Duration watch;
    private final int maxLineBytes;

    FileSplits(Path root, String glob, LineFormat<T> format, Duration watch, int maxLineBytes) {
        this.root = root;
        this.glob = glob;
        this.matcher = glob == null ? null : root.getFileSystem().getPathMatcher("glob:" + glob);
        this.format = format;
        this.watch = watch;
        this.maxLineBytes = maxLineBytes;
    }

    @Override
    public List<String> discover() throws IOException {
        if (Files.isRegularFile(root)) {
            return List.of(root.getFileName().toString());
        }
        if (!Files.isDirectory(root)) {
            throw new NoSuchFileException(root.toString(), null, "neither a file nor a directory");
        }
        List<String> ids = new ArrayList<>();
        try (Stream<Path> files = Files.list(root)) {
            files.filter(Files::isRegularFile).map(p -> p.getFileName().toString())
                    .filter(name -> !name.startsWith(".") && !name.endsWith(".inprogress"))
                    .filter(name -> matcher == null || matcher.matches(Path.of(name)))
                    .sorted()
                    .forEach(ids::add);
        }
        return ids;
    }

    @Override
    public SplitReader<T> open(String split, byte[] position, SplitContext context) throws IOException {
        Path file = Files.isDirectory(root) ? root.resolve(split) : root;
        long offset = position == null ? 0 : FileLineReader.offsetOf(position);
        long lines = position == null ? 0 : FileLineReader.linesOf(position);
        boolean skipping = position != null && FileLineReader.skippingOf(position);
        return new FileLineReader<>(file, split, format, offset, lines, skipping, maxLineBytes, !watch.isZero(), context);
    }

    @Override
    public Duration discoveryInterval() {
        return watch;
    }

    @Override
    public String describe() {
        return "files(" + root + (glob == null ? "" : ", " + glob) + ", " + format.describe() + (watch.isZero() ? "" : ", watched") + ")";
    }
}
