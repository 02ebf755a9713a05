package air.dsl.impl.aggregate;

import air.runtime.api.Codec;
import air.runtime.api.LongAggregateOp;
import java.util.Locale;
import java.util.function.ToLongFunction;

/** Sum, min or max of a long extracted from each record. */
public final class LongFieldOp<T> implements LongAggregateOp<T, MutableLong, Long> {

    /** Which fold to apply. */
    public enum Kind { SUM, MIN, MAX }

    private final Kind kind;
    private final ToLongFunction<? super T> valueFn;

    public LongFieldOp(Kind kind, ToLongFunction<? super T> valueFn) {
        this.kind = kind;
        this.valueFn = valueFn;
    }

    @Override
    public MutableLong create() {
        return MutableLong.padded(identity());
    }

    @Override
    public long identity() {
        return switch (kind) {
            case SUM -> 0L;
            case MIN -> Long.MAX_VALUE;
            case MAX -> Long.MIN_VALUE;
        };
    }

    @Override
    public long accumulateLong(long value, T item) {
        return fold(value, valueFn.applyAsLong(item));
    }

    @Override
    public long combineLong(long value, long other) {
        return fold(value, other);
    }

    @Override
    public boolean additive() {
        return kind == Kind.SUM;
    }

    @Override
    public long increment(T item) {
        return valueFn.applyAsLong(item);
    }

    @Override
    public Long finishLong(long value) {
        return value;
    }

    @Override
    public MutableLong accumulatorOf(long value) {
        return new MutableLong(value);
    }

    @Override
    public long valueOf(MutableLong acc) {
        return acc.value;
    }

    @Override
    public void accumulate(MutableLong acc, T item) {
        acc.value = fold(acc.value, valueFn.applyAsLong(item));
    }

    @Override
    public void combine(MutableLong acc, MutableLong other) {
        acc.value = fold(acc.value, other.value);
    }

    private long fold(long a, long b) {
        return switch (kind) {
            case SUM -> a + b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
        };
    }

    @Override
    public Long finish(MutableLong acc) {
        return acc.value;
    }

    @Override
    public String name() {
        return kind.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public Codec<MutableLong> accumulatorCodec() {
        return MutableLong.CODEC;
    }
}
