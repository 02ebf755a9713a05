package air.runtime.api;

/**
 * Event-time session windows with a gap of {@code gapMs}: two records of a key are in one session
 * when no record of that key between them follows its predecessor by more than {@code gapMs}. A
 * session is {@code [time of its first record, time of its last record + gapMs)}, so every record
 * opens a window {@code [t, t + gapMs)} and windows that overlap or touch merge (Flink's
 * {@code EventTimeSessionWindows.withGap}: a record exactly {@code gapMs} after the last one
 * continues the session). A session is emitted once progress passes its end.
 */
public record SessionWindow(long gapMs) implements PerKeyWindow {

    /** The longest gap: event times plus a gap stay far from overflow. */
    public static final long MAX_GAP_MS = 100L * 366 * 24 * 3600 * 1000;

    public SessionWindow {
        if (gapMs <= 0 || gapMs > MAX_GAP_MS) {
            throw new IllegalArgumentException("session gap must be in [1, " + MAX_GAP_MS + "] ms (about a century), was " + gapMs);
        }
    }

    @Override
    public String toString() {
        return "session(" + gapMs + "ms)";
    }
}
