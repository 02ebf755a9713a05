package air.runtime.api;

/** One value per key of a keyed process function; null when unset (or expired by its time to live). */
public interface ValueState<V> {

    /** The key's value, or null. */
    V value();

    /** Sets the key's value; null clears it. */
    void update(V value);

    /** Removes the key's value. */
    void clear();
}
