package air.dsl.impl.aggregate;

/** A mutable long accumulator: one allocation per (window, key), none per record. */
public final class MutableLong extends PaddedAccumulator {
    long value;

    MutableLong(long initial) {
        value = initial;
    }
}
