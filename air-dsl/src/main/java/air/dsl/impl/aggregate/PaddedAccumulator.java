package air.dsl.impl.aggregate;

/**
 * A cache line in front of an accumulator's fields. Workers update their own accumulators per
 * record; a garbage collection may copy two workers' accumulators side by side, and without the
 * pad the two cores would then fight over one cache line for the rest of the window.
 */
@SuppressWarnings("unused")
abstract class PaddedAccumulator {
    private long p00, p01, p02, p03, p04, p05, p06, p07;
}
