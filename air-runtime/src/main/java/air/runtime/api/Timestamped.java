package air.runtime.api;

/** A record with its event time, as interval and lookup joins buffer it until progress passes. */
public record Timestamped<T>(long timestamp, T value) {
}
