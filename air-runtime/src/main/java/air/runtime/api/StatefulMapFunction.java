package air.runtime.api;

/**
 * The function of {@code keyed.mapStateful(...)}: given the key's state object (created on the
 * key's first record, changed in place), the key and a record, the output, or null for none.
 *
 * @param <S> the per-key state object
 * @param <K> the key type
 * @param <T> the input record type
 * @param <R> the output type
 */
@FunctionalInterface
public interface StatefulMapFunction<S, K, T, R> {

    R apply(S state, K key, T record);
}
