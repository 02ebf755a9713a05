package air.dsl.impl.aggregate;

import air.runtime.api.Codec;
import air.wire.WireIn;
import air.wire.WireOut;

/**
 * A mutable long accumulator: one allocation per (window, key), none per record. Two sizes:
 * {@link #padded} for the accumulators frames keep and update per record (a cache line after the
 * value, so that two workers' accumulators copied side by side by a garbage collection never share
 * one), and the plain object (24 bytes instead of about 150) for the ones that only travel:
 * partials shipped and received by frames that keep their values as primitives, and decoded ones.
 */
public class MutableLong {
    long value;

    MutableLong(long initial) {
        value = initial;
    }

    /** An accumulator a frame keeps and updates per record. */
    static MutableLong padded(long initial) {
        return new Padded(initial);
    }

    /** Eight bytes on the wire. */
    static final Codec<MutableLong> CODEC = new Codec<>() {
        @Override public void write(MutableLong v, WireOut out) { out.putLong(v.value); }
        @Override public MutableLong read(WireIn in) { return new MutableLong(in.getLong()); }
    };

    /** Two cache lines after the value: the next object stays off its line. */
    @SuppressWarnings("unused")
    private static final class Padded extends MutableLong {
        private long q00, q01, q02, q03, q04, q05, q06, q07, q08, q09, q10, q11, q12, q13, q14, q15;

        Padded(long initial) {
            super(initial);
        }
    }
}
