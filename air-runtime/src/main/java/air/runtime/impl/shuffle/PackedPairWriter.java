package air.runtime.impl.shuffle;

import air.wire.LongColumns;
import air.wire.WireOut;
import org.eclipse.collections.api.block.procedure.primitive.LongLongProcedure;
import org.eclipse.collections.impl.map.mutable.primitive.LongLongHashMap;

/**
 * Writes a primitive frame as a packed partial, in one pass over its map ({@code forEachKeyValue}:
 * its array in order, no second lookup per key) in the columns' widths of the frame's previous
 * snapshot, learning on the way the widths the entries need: when a key or count grew past the
 * widths (and at a frame's first snapshot, written in the narrowest), a second pass writes in the
 * widths just learnt. A frame's keys only join and its values rarely cross a byte boundary between
 * two snapshots a second apart, so a frame that stays open across snapshots (every frame of the
 * million-key job) costs one pass, not two. One writer per frame; a class of its own, not a lambda:
 * the frames that use it are per-job copies, which cannot capture themselves.
 */
public final class PackedPairWriter implements LongLongProcedure {

    private WireOut out;
    private long keyBits;
    private long valueBits;
    /** The widths entries are written in: the ones the frame's previous snapshot needed (the narrowest before its first). */
    private int keyWidth = 1;
    private int valueWidth = 1;

    /** Writes {@code values} as the packed partial of frame {@code frameStart} (destination and producer 0). */
    public void write(long frameStart, LongLongHashMap values, WireOut out) {
        int start = out.mark();
        if (pass(frameStart, values, out)) {
            return;
        }
        out.truncate(start);
        if (!pass(frameStart, values, out)) {
            throw new IllegalStateException("a frame's entries outgrew the widths learnt from them");
        }
    }

    /**
     * Writes every entry in the current widths, learning the widths they need on the way; whether
     * those fit (else what was written is wrong and the widths are now the ones needed).
     */
    private boolean pass(long frameStart, LongLongHashMap values, WireOut out) {
        ShuffleItemCodec.writePackedHead(0, 0, frameStart, values.size(), keyWidth, valueWidth, out);
        keyBits = 0;
        valueBits = 0;
        this.out = out;
        try {
            values.forEachKeyValue(this);
        } finally {
            this.out = null;
        }
        int keysNeed = WireOut.widthOf(keyBits);
        int valuesNeed = WireOut.widthOf(valueBits);
        boolean fits = keysNeed <= keyWidth && valuesNeed <= valueWidth;
        keyWidth = keysNeed;
        valueWidth = valuesNeed;
        return fits;
    }

    @Override
    public void value(long key, long value) {
        long k = LongColumns.zigzag(key);
        long v = LongColumns.zigzag(value);
        keyBits |= k;
        valueBits |= v;
        out.putLong(k, keyWidth).putLong(v, valueWidth);
    }
}
