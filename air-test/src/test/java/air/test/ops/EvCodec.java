package air.test.ops;

import air.runtime.api.Codec;
import air.wire.WireIn;
import air.wire.WireOut;

/** How an {@link Ev} crosses checkpoints in the operators that keep records. */
final class EvCodec implements Codec<Ev> {

    static final EvCodec EV = new EvCodec();

    @Override
    public void write(Ev e, WireOut out) {
        out.putLong(e.key()).putLong(e.time()).putLong(e.value()).putInt(e.producer());
    }

    @Override
    public Ev read(WireIn in) {
        return new Ev(in.getLong(), in.getLong(), in.getLong(), in.getInt());
    }
}
