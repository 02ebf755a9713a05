package air.dsl.impl.aggregate;

import air.runtime.api.Codec;
import air.runtime.api.LongAggregateOp;

/** Counts records. */
public final class CountOp<T> implements LongAggregateOp<T, MutableLong, Long> {

    @Override public MutableLong create() { return MutableLong.padded(0); }

    @Override public void accumulate(MutableLong acc, T item) { acc.value++; }

    @Override public void combine(MutableLong acc, MutableLong other) { acc.value += other.value; }

    @Override public Long finish(MutableLong acc) { return acc.value; }

    @Override public long identity() { return 0; }

    @Override public long accumulateLong(long value, T item) { return value + 1; }

    @Override public long combineLong(long value, long other) { return value + other; }

    @Override public Long finishLong(long value) { return value; }

    @Override public boolean additive() { return true; }

    @Override public long increment(T item) { return 1; }

    @Override public MutableLong accumulatorOf(long value) { return new MutableLong(value); }

    @Override public long valueOf(MutableLong acc) { return acc.value; }

    @Override public String name() { return "count"; }

    @Override
    public Codec<MutableLong> accumulatorCodec() {
        return MutableLong.CODEC;
    }
}
