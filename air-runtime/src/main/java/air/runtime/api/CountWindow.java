package air.runtime.api;

/**
 * Count windows of {@code size} records per key: a key's records are taken in order (see
 * {@code docs/dsl.md}, "Session and count windows", for what the order is with several source
 * instances) and every {@code size} of them make one window, emitted as soon as it holds
 * {@code size}. A window still short of {@code size} when the input ends is dropped, as in Flink.
 */
public record CountWindow(long size) implements PerKeyWindow {

    public CountWindow {
        if (size < 1) {
            throw new IllegalArgumentException("a count window needs size >= 1 record, was " + size);
        }
    }

    @Override
    public String toString() {
        return "count(" + size + ")";
    }
}
