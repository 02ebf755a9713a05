package air.runtime.api;

import java.util.List;

/** A list per key of a keyed process function; empty when unset (or expired by its time to live). */
public interface ListState<E> {

    /** The key's elements in the order they were added, unmodifiable (a view that later changes show through). */
    List<E> get();

    /** Appends one element. */
    void add(E element);

    /** Replaces the key's elements with a copy of {@code elements}. */
    void update(List<? extends E> elements);

    /** Removes every element of the key. */
    void clear();
}
