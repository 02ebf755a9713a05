package air.runtime.api;

/**
 * One row of a window that may be emitted more than once (a window with allowed lateness or early
 * results): the value of {@code key} in {@code [start, end)} as of this emission. Rows are
 * <b>upserts</b>: a later row of the same (start, end, key) replaces the earlier one, so a sink
 * that keeps the last row per (start, end, key) converges to the result over every record the
 * window admitted. {@code kind} says why the row was emitted.
 */
public record WindowUpdate<K, R>(long start, long end, K key, R value, Kind kind) {

    /** Why a window row was emitted. */
    public enum Kind {
        /** The window is still open: its value so far, emitted on the processing-time interval of {@code earlyResults}. */
        EARLY,
        /** Progress passed the window's end: its value over every record that was not late (what a plain window emits). */
        ON_TIME,
        /** Records late but within the allowed lateness arrived after the on-time row: the value with them. */
        LATE
    }

    /** The row as a plain window result (without its kind). */
    public WindowResult<K, R> result() {
        return new WindowResult<>(start, end, key, value);
    }
}
