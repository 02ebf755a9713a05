package air.dsl.impl.aggregate;

import air.runtime.api.AggregateOp;
import java.util.function.BinaryOperator;

/** Pairwise reduction of the records themselves. */
public final class ReduceOp<T> implements AggregateOp<T, ReduceOp.Acc<T>, T> {

    /** The reduction so far; {@code null} until the first record. */
    public static final class Acc<T> extends PaddedAccumulator {
        T value;
    }

    private final BinaryOperator<T> reduceFn;

    public ReduceOp(BinaryOperator<T> reduceFn) {
        this.reduceFn = reduceFn;
    }

    @Override public Acc<T> create() { return new Acc<>(); }

    @Override
    public void accumulate(Acc<T> acc, T item) {
        acc.value = acc.value == null ? item : reduceFn.apply(acc.value, item);
    }

    @Override
    public void combine(Acc<T> acc, Acc<T> other) {
        if (other.value != null) {
            accumulate(acc, other.value);
        }
    }

    @Override public T finish(Acc<T> acc) { return acc.value; }

    @Override public String name() { return "reduce"; }
}
