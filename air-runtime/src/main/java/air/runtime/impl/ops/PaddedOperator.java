package air.runtime.impl.ops;

/**
 * Puts a cache line in front of an operator's own fields. Every worker writes its operators'
 * counters per record; without the pad, the last operator of one worker and the first of the next
 * (allocated side by side) share a cache line and the two cores fight over it.
 */
@SuppressWarnings("unused")
public abstract class PaddedOperator {
    private long p00, p01, p02, p03, p04, p05, p06, p07;
}
