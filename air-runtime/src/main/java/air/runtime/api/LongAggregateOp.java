package air.runtime.api;

/**
 * An aggregation whose accumulator is one {@code long} (count, sum, min, max of a long): window
 * frames keyed by a long keep its values in a primitive map, with no accumulator object per key.
 * A frame of a million keys is then two arrays instead of a million objects: nothing for the
 * collector to copy, no pointer to follow per key when a checkpoint writes the frame.
 *
 * <p>Partials leave a frame as accumulator objects ({@link #accumulatorOf} and {@link #valueOf}
 * convert), and cross peers and go into checkpoints packed: keys and values in the fewest bytes
 * that hold them. For that the accumulator codec must write an accumulator as the eight bytes of
 * its value ({@code WireOut.putLong(valueOf(acc))}); the engine checks that once per operator and
 * keeps accumulator objects, written by the codec, when it does not hold.
 */
public interface LongAggregateOp<T, A, R> extends AggregateOp<T, A, R> {

    /** The value of a new accumulator (what {@link #create} holds). */
    long identity();

    /** {@link #accumulate} on the value: the value after {@code item}. */
    long accumulateLong(long value, T item);

    /** {@link #combine} on values: associative, as {@code combine} is. */
    long combineLong(long value, long other);

    /** {@link #finish} of an accumulator holding {@code value}. */
    R finishLong(long value);

    /**
     * Whether accumulating a record adds {@link #increment} of it to the value, from an identity of
     * 0 (count, sum): a frame then updates a key in one lookup of its map instead of a read and a
     * write. Combining is then addition too.
     */
    default boolean additive() {
        return false;
    }

    /** What accumulating {@code item} adds to the value, for an {@link #additive} aggregation. */
    default long increment(T item) {
        throw new UnsupportedOperationException(name() + " is not additive");
    }

    /** A new accumulator holding {@code value}. */
    A accumulatorOf(long value);

    /** The value {@code acc} holds. */
    long valueOf(A acc);
}
