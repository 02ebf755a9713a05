package air.runtime.impl.ops;

import air.wire.LongColumns;
import air.wire.WireOut;
import org.eclipse.collections.api.block.procedure.primitive.LongLongProcedure;
import org.eclipse.collections.impl.map.mutable.primitive.LongLongHashMap;

/**
 * Writes a primitive frame as a packed partial in two passes over its map
 * ({@code forEachKeyValue}: its array in order, no second lookup per key): the first learns the
 * columns' widths, the second writes each entry in them. A class of its own, not a lambda: the
 * frames that use it are per-job copies, which cannot capture themselves.
 */
final class PackedPairWriter implements LongLongProcedure {

    private WireOut out;
    private boolean writing;
    private long keyBits;
    private long valueBits;
    private int keyWidth;
    private int valueWidth;

    /** Writes {@code values} as the packed partial of frame {@code frameStart} (destination and producer 0). */
    void write(long frameStart, LongLongHashMap values, WireOut out) {
        writing = false;
        keyBits = 0;
        valueBits = 0;
        values.forEachKeyValue(this);
        keyWidth = WireOut.widthOf(keyBits);
        valueWidth = WireOut.widthOf(valueBits);
        ShuffleItemCodec.writePackedHead(0, 0, frameStart, values.size(), keyWidth, valueWidth, out);
        this.out = out;
        writing = true;
        try {
            values.forEachKeyValue(this);
        } finally {
            this.out = null;
        }
    }

    @Override
    public void value(long key, long value) {
        long k = LongColumns.zigzag(key);
        long v = LongColumns.zigzag(value);
        if (writing) {
            out.putLong(k, keyWidth).putLong(v, valueWidth);
        } else {
            keyBits |= k;
            valueBits |= v;
        }
    }
}
