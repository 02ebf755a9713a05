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
 * one) lists the same ids; or, when reading in byte ranges, one split per range of every file
 * ({@link FileSplit}), a file's ranges dealt out in turn from the owner of its name. Hidden
 * files ({@code .name}) and files still being written by an AIR
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
    /** The length of the ranges files are read in; 0: each file whole. */
    private final long rangeBytes;

    FileSplits(Path root, String glob, LineFormat<T> format, Duration watch, int maxLineBytes, long rangeBytes) {
        this.root = root;
        this.glob = glob;
        this.matcher = glob == null ? null : root.getFileSystem().getPathMatcher("glob:" + glob);
        this.format = format;
        this.watch = watch;
        this.maxLineBytes = maxLineBytes;
        this.rangeBytes = rangeBytes;
    }

    @Override
    public List<String> discover() throws IOException {
        if (Files.isRegularFile(root)) {
            return ids(root.getFileName().toString(), root);
        }
        if (!Files.isDirectory(root)) {
            throw new NoSuchFileException(root.toString(), null, "neither a file nor a directory");
        }
        List<String> names = new ArrayList<>();
        try (Stream<Path> files = Files.list(root)) {
            files.filter(Files::isRegularFile).map(p -> p.getFileName().toString())
                    .filter(name -> !name.startsWith(".") && !name.endsWith(".inprogress"))
                    .filter(name -> matcher == null || matcher.matches(Path.of(name)))
                    .sorted()
                    .forEach(names::add);
        }
        if (rangeBytes == 0) {
            return names;
        }
        List<String> ids = new ArrayList<>();
        for (String name : names) {
            ids.addAll(ids(name, root.resolve(name)));
        }
        return ids;
    }

    /** The ids of one file's splits: its name, or its ranges by its size now. */
    private List<String> ids(String name, Path file) throws IOException {
        if (rangeBytes == 0) {
            return List.of(name);
        }
        return FileSplit.ranges(name, Files.size(file), rangeBytes).stream().map(FileSplit::id).toList();
    }

    /** A whole file by the hash of its name; a file's ranges in turn from the owner of its first. */
    @Override
    public int ownerOf(String split, int parallelism) {
        FileSplit s = FileSplit.parse(split, rangeBytes > 0);
        if (s.isWhole()) {
            return Splits.super.ownerOf(split, parallelism);
        }
        return (int) ((Splits.super.ownerOf(s.file(), parallelism) + s.start() / rangeBytes) % parallelism);
    }

    @Override
    public SplitReader<T> open(String split, byte[] position, SplitContext context) throws IOException {
        FileSplit s = FileSplit.parse(split, rangeBytes > 0);
        Path file = Files.isDirectory(root) ? root.resolve(s.file()) : root;
        if (position != null) {
            return new FileLineReader<>(file, s, format, FileLineReader.offsetOf(position), FileLineReader.linesOf(position),
                    FileLineReader.skippingOf(position), maxLineBytes, !watch.isZero(), context);
        }
        // a range after the first begins by passing over the end of the line that begins before it (from the byte before it,
        // so that a line beginning exactly at its start is its own)
        boolean inLine = s.start() > 0;
        return new FileLineReader<>(file, s, format, inLine ? s.start() - 1 : 0, 0, inLine, maxLineBytes, !watch.isZero(), context);
    }

    @Override
    public Duration discoveryInterval() {
        return watch;
    }

    @Override
    public String describe() {
        return "files(" + root + (glob == null ? "" : ", " + glob) + ", " + format.describe() + (watch.isZero() ? "" : ", watched")
                + (rangeBytes == 0 ? "" : ", in ranges of " + rangeBytes + " bytes") + ")";
    }
}
