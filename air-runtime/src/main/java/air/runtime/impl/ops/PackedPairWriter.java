package air.runtime.impl.ops;

import air.wire.WireOut;
import org.eclipse.collections.api.block.procedure.primitive.LongLongProcedure;

/**
 * Writes a primitive frame's (key, value) pairs as a packed partial's entries in one pass over
 * the map ({@code forEachKeyValue}: its array in order, no second lookup per key), learning the
 * columns' widths on the way; {@link #finish} narrows them. A class of its own, not a lambda:
 * the frames that use it are per-job copies, which cannot capture themselves.
 */
final class PackedPairWriter implements LongLongProcedure {

    private WireOut out;
    private long keyBits;
    private long valueBits;

    /** Starts a frame of {@code size} entries: its packed head, then the entries as {@link #value} is called. */
    int start(long frameStart, int size, WireOut out) {
        this.out = out;
        keyBits = 0;
        valueBits = 0;
        return ShuffleItemCodec.writePackedHead(0, 0, frameStart, size, out);
    }

    @Override
    public void value(long key, long value) {
        long k = ShuffleItemCodec.zigzag(key);
        long v = ShuffleItemCodec.zigzag(value);
        out.putLong(k).putLong(v);
        keyBits |= k;
        valueBits |= v;
    }

    /** Narrows the {@code size} entries written from {@code entries} ({@code widths}: what {@link #start} returned). */
    void finish(int widths, int entries, int size) {
        ShuffleItemCodec.packEntries(out, widths, entries, size, keyBits, valueBits);
        out = null;
    }
}
