package air.runtime.api;

import java.util.Map;

/** A map per key of a keyed process function; empty when unset (or expired by its time to live). */
public interface MapState<MK, MV> {

    /** The value under {@code mapKey}, or null. */
    MV get(MK mapKey);

    /** Puts {@code value} under {@code mapKey}; a null value removes the entry. */
    void put(MK mapKey, MV value);

    /** Removes the entry under {@code mapKey}. */
    void remove(MK mapKey);

    boolean contains(MK mapKey);

    /** The key's entries in insertion order, unmodifiable (a view that later changes show through). */
    Map<MK, MV> entries();

    boolean isEmpty();

    /** Removes every entry of the key. */
    void clear();
}
