package air.dsl.impl.aggregate;

import air.runtime.api.Codec;
import air.wire.WireIn;
import air.wire.WireOut;

/** A mutable long accumulator: one allocation per (window, key), none per record. */
public final class MutableLong extends PaddedAccumulator {
    long value;
    @SuppressWarnings("unused")
    private long q00, q01, q02, q03, q04, q05, q06, q07; // after the hot longs: keeps the next object off their cache line

    MutableLong(long initial) {
        value = initial;
    }

    /** Eight bytes on the wire. */
    static final Codec<MutableLong> CODEC = new Codec<>() {
        @Override public void write(MutableLong v, WireOut out) { out.putLong(v.value); }
        @Override public MutableLong read(WireIn in) { return new MutableLong(in.getLong()); }
    };
}
