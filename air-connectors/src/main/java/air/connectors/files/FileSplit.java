package air.connectors.files;

import java.util.ArrayList;
import java.util.List;

/**
 * One split of a file source: a whole file, or, when the source reads in
 * {@linkplain FileSource#byteRanges byte ranges}, the lines that begin in {@code [start, end)} of
 * one. The one home of the split id: a whole file's id is its name; a range's id is its name,
 * {@value #MARK} and the two offsets, so that every peer that lists the same file of the same size
 * names the same ranges, and a restored position finds its range again.
 *
 * @param file  the file's name relative to the source's directory
 * @param start the offset of the range's first byte (0 for a whole file)
 * @param end   the offset after the range's last byte ({@link Long#MAX_VALUE} for a whole file)
 */
record FileSplit(String file, long start, long end) {

    /** Between a file's name and its range in an id. */
    static final String MARK = "#bytes=";

    /** The whole of {@code file}. */
    static FileSplit whole(String file) {
        return new FileSplit(file, 0, Long.MAX_VALUE);
    }

    /**
     * The ranges of {@code rangeBytes} that a file of {@code size} bytes is read in: at least one,
     * so that an empty file is listed too; the last one ends at the size.
     */
    static List<FileSplit> ranges(String file, long size, long rangeBytes) {
        List<FileSplit> ranges = new ArrayList<>();
        long start = 0;
        do {
            long end = size - start > rangeBytes ? start + rangeBytes : size;
            ranges.add(new FileSplit(file, start, end));
            start = end;
        } while (start < size);
        return ranges;
    }

    /** The split an id names: a range when the source reads in ranges and the id names one, else a whole file. */
    static FileSplit parse(String id, boolean ranged) {
        int mark = ranged ? id.lastIndexOf(MARK) : -1;
        int dash = mark < 0 ? -1 : id.indexOf('-', mark + MARK.length());
        if (dash < 0) {
            return whole(id);
        }
        try {
            long start = Long.parseLong(id, mark + MARK.length(), dash, 10);
            long end = Long.parseLong(id, dash + 1, id.length(), 10);
            return start >= 0 && end >= start ? new FileSplit(id.substring(0, mark), start, end) : whole(id);
        } catch (NumberFormatException e) {
            return whole(id);
        }
    }

    /** Whether this is a whole file. */
    boolean isWhole() {
        return start == 0 && end == Long.MAX_VALUE;
    }

    /** Its id, as listed. */
    String id() {
        return isWhole() ? file : file + MARK + start + "-" + end;
    }

    /** Whether the lines it reads can be numbered from the file's start: it begins there. */
    boolean numbersLines() {
        return start == 0;
    }
}
