package air.runtime.api;

/**
 * Combines one key's results of one window from the two sides of a window join. {@code left} or
 * {@code right} is null where that side has no record for the key (outer joins only); the result
 * must not be null.
 */
@FunctionalInterface
public interface JoinFunction<K, L, R, O> {
    O apply(K key, L left, R right);
}
