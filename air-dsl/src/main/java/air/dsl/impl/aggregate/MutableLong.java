package air.dsl.impl.aggregate;

/** A mutable long accumulator: one allocation per (window, key), none per record. */
public final class MutableLong extends PaddedAccumulator {
    long value;
    @SuppressWarnings("unused")
    private long q00, q01, q02, q03, q04, q05, q06, q07; // after the hot longs: keeps the next object off their cache line

    MutableLong(long initial) {
        value = initial;
    }

    /** Eight bytes on the wire. */
    static final air.runtime.api.Codec<MutableLong> CODEC = new air.runtime.api.Codec<>() {
        @Override public void write(MutableLong v, air.wire.WireOut out) { out.putLong(v.value); }
        @Override public MutableLong read(air.wire.WireIn in) { return new MutableLong(in.getLong()); }
    };
}
