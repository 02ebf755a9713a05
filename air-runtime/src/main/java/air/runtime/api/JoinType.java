package air.runtime.api;

/**
 * Which (window, key) pairs a window join emits: those present on both sides ({@link #INNER}),
 * every one of the left side ({@link #LEFT}), of the right side ({@link #RIGHT}) or of either
 * ({@link #FULL}). A side with no record for the key gives the join function {@code null}.
 */
public enum JoinType {
    INNER, LEFT, RIGHT, FULL;

    /** Whether a key only the left side holds is emitted. */
    public boolean keepsLeftOnly() {
        return this == LEFT || this == FULL;
    }

    /** Whether a key only the right side holds is emitted. */
    public boolean keepsRightOnly() {
        return this == RIGHT || this == FULL;
    }
}
