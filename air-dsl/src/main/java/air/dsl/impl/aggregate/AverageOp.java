package air.dsl.impl.aggregate;

import air.runtime.api.AggregateOp;
import air.runtime.api.Codec;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.function.ToDoubleFunction;

/** The arithmetic mean of a double extracted from each record. */
public final class AverageOp<T> implements AggregateOp<T, AverageOp.Acc, Double> {

    /** Count and sum so far. */
    public static final class Acc extends PaddedAccumulator {
        long count;
        double sum;
        @SuppressWarnings("unused")
        private long q00, q01, q02, q03, q04, q05, q06, q07; // after the hot longs: keeps the next object off their cache line
    }

    private final ToDoubleFunction<? super T> valueFn;

    public AverageOp(ToDoubleFunction<? super T> valueFn) {
        this.valueFn = valueFn;
    }

    @Override public Acc create() { return new Acc(); }

    @Override
    public void accumulate(Acc acc, T item) {
        acc.count++;
        acc.sum += valueFn.applyAsDouble(item);
    }

    @Override
    public void combine(Acc acc, Acc other) {
        acc.count += other.count;
        acc.sum += other.sum;
    }

    @Override public Double finish(Acc acc) { return acc.sum / acc.count; }

    @Override public String name() { return "average"; }

    private static final Codec<Acc> CODEC = new Codec<>() {
        @Override public void write(Acc v, WireOut out) { out.putLong(v.count).putDouble(v.sum); }
        @Override public Acc read(WireIn in) {
            Acc a = new Acc();
            a.count = in.getLong();
            a.sum = in.getDouble();
            return a;
        }
    };

    @Override
    public Codec<Acc> accumulatorCodec() {
        return CODEC;
    }
}
