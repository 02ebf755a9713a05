package air.runtime.api;

/** The result of one window of an unkeyed stream: {@code [start, end)} in event-time milliseconds. */
public record WindowValue<R>(long start, long end, R value) {
}
