package air.runtime.api;

/** The result of one window for one key: {@code [start, end)} in event-time milliseconds. */
public record WindowResult<K, R>(long start, long end, K key, R value) {
}
