package air.wire;

/**
 * A table of long columns, packed: per column its first value, then the differences between
 * neighbouring values, zigzagged (so that small steps either way stay small) and written in the
 * fewest bytes that hold the column's largest ({@link WireOut#putLong(long, int)}). Result rows
 * sorted or emitted in order — a window start that repeats, small keys, small counts, emit times
 * nanoseconds apart — take a few bytes a value instead of eight. For snapshots of sinks' rows and
 * for results gathered from peers; {@link #read} checks every count against the bytes left.
 */
public final class LongColumns {

    private LongColumns() {
    }

    /** Writes rows {@code from .. from + n - 1} of {@code columns} (all as long as that). */
    public static void write(WireOut out, int from, int n, long[]... columns) {
        out.putInt(n).putByte(columns.length);
        for (long[] column : columns) {
            if (n == 0) {
                continue;
            }
            long bits = 0;
            long previous = column[from];
            for (int i = from + 1; i < from + n; i++) {
                bits |= zigzag(column[i] - previous);
                previous = column[i];
            }
            int width = WireOut.widthOf(bits);
            out.putLong(column[from]).putByte(width).reserve(width * (n - 1) + 8);
            previous = column[from];
            for (int i = from + 1; i < from + n; i++) {
                out.putLong(zigzag(column[i] - previous), width);
                previous = column[i];
            }
        }
    }

    /** What {@link #write} wrote, which must be {@code columns} columns: one array per column. */
    public static long[][] read(WireIn in, int columns) {
        int n = in.getInt();
        int written = in.getByte();
        if (n < 0 || written != columns) {
            throw in.malformed("a table of " + n + " rows in " + written + " columns, where " + columns + " columns were expected");
        }
        long[][] table = new long[columns][];
        for (int c = 0; c < columns; c++) {
            if (n == 0) {
                table[c] = new long[0];
                continue;
            }
            long first = in.getLong();
            int width = in.getByte();
            if (width < 1 || width > 8 || (long) width * (n - 1) > in.remaining()) {
                throw in.malformed("column " + c + " of " + n + " values of " + width + " bytes does not fit in the " + in.remaining()
                        + " bytes left");
            }
            long[] column = new long[n];
            column[0] = first;
            for (int i = 1; i < n; i++) {
                column[i] = column[i - 1] + unzigzag(in.getLong(width));
            }
            table[c] = column;
        }
        return table;
    }

    /** Small magnitudes, of either sign, to small unsigned values (0, -1, 1, -2 ... to 0, 1, 2, 3 ...). */
    public static long zigzag(long v) {
        return v << 1 ^ v >> 63;
    }

    /** The value {@link #zigzag} was given. */
    public static long unzigzag(long v) {
        return v >>> 1 ^ -(v & 1);
    }
}
