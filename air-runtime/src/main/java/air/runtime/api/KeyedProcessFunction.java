package air.runtime.api;

/**
 * The user's function of a keyed process stage ({@code keyBy(...).process(fn, states...)}): called
 * once per record with the record's key in scope, and once per timer that fires. It keeps what it
 * needs in per-key state ({@link ProcessContext#state}), registers timers, and emits zero or more
 * records per call. All calls of one key come on one thread, one at a time.
 *
 * @param <K> the key type
 * @param <T> the input record type
 * @param <O> the main output type
 */
@FunctionalInterface
public interface KeyedProcessFunction<K, T, O> {

    /** Handles one record of key {@code ctx.key()}. */
    void process(T record, ProcessContext<K, O> ctx);

    /**
     * A timer of key {@code ctx.key()} registered for {@code time} fired ({@code domain} says which
     * clock); timers of one domain fire in order of time. The default ignores timers.
     */
    default void onTimer(long time, TimeDomain domain, ProcessContext<K, O> ctx) {
    }
}
