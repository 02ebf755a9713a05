package air.runtime.api;

/**
 * Combines what two joined sides have for one key: in a window join one window's results of each
 * side ({@code left} or {@code right} null where that side has no record for the key, outer joins
 * only); in an interval join a pair of records; in a lookup join a record and its key's table
 * value (null under {@code LEFT} when there is none). The result must not be null.
 */
@FunctionalInterface
public interface JoinFunction<K, L, R, O> {
    O apply(K key, L left, R right);
}
