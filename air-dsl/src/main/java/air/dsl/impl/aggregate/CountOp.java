package air.dsl.impl.aggregate;

import air.runtime.api.AggregateOp;
import air.runtime.api.Codec;

/** Counts records. */
public final class CountOp<T> implements AggregateOp<T, MutableLong, Long> {

    @Override public MutableLong create() { return new MutableLong(0); }

    @Override public void accumulate(MutableLong acc, T item) { acc.value++; }

    @Override public void combine(MutableLong acc, MutableLong other) { acc.value += other.value; }

    @Override public Long finish(MutableLong acc) { return acc.value; }

    @Override public String name() { return "count"; }

    @Override
    public Codec<MutableLong> accumulatorCodec() {
        return MutableLong.CODEC;
    }
}
