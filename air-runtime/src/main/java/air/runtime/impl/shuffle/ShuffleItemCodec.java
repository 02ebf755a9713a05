package air.runtime.impl.shuffle;

import air.runtime.api.Codec;
import air.runtime.api.Codecs;
import air.runtime.api.LongAggregateOp;
import air.runtime.impl.failure.OperatorFailure;
import air.runtime.plan.OperatorInfo;
import air.wire.LongColumns;
import air.wire.WireIn;
import air.wire.WireOut;

/**
 * The wire form of shuffle items between peers: kind, destination instance, producer, then the
 * item's fields; a partial's keys as primitives (long keys) or tagged values (String, Long and
 * Integer directly, any other type through the JVM's serializer) and its accumulators through the
 * aggregation's {@link Codec}, or the serializer when it has none; records likewise. Partials of
 * one-long aggregations by a long key go packed ({@link #packing}). Frame snapshots in checkpoints
 * are partials in this form too.
 */
public final class ShuffleItemCodec {

    /** A decoded item and the global index of the final-aggregate instance it is for. */
    public record Addressed(int destination, ShuffleItem item) { }

    private static final int PARTIAL = 1, WATERMARK = 2, END = 3, CREDIT = 4, RANGE = 5, BARRIER = 6, RECORDS = 7;
    /** A partial's update kinds: a regular partial's layout with the version after the frame start. */
    private static final int PREVIEW = 8, LATE = 9;
    /** A regular partial of long keys and one-long accumulators, both columns in the fewest bytes they fit ({@link #packs}). */
    private static final int PACKED = 10;
    private static final int LONG_KEYS = 0, OBJECT_KEYS = 1;
    private static final int STRING = 1, LONG = 2, INTEGER = 3, SERIALIZED = 4;

    private final OperatorInfo info;
    private final Codec<Object> accumulators;
    private final Codec<Object> records;
    /** The aggregation, when its accumulators are one long each (else null): its partials are packed. */
    private final LongAggregateOp<?, Object, ?> longs;

    /** The codec of a window shuffle: partials' accumulators by {@code accumulatorCodec} (null: the serializer). */
    public ShuffleItemCodec(OperatorInfo info, Codec<?> accumulatorCodec) {
        this(info, accumulatorCodec, null, null);
    }

    @SuppressWarnings("unchecked")
    private ShuffleItemCodec(OperatorInfo info, Codec<?> accumulatorCodec, Codec<?> recordCodec, LongAggregateOp<?, ?, ?> longs) {
        this.info = info;
        this.accumulators = Codecs.orSerialized((Codec<Object>) accumulatorCodec);
        this.records = Codecs.orSerialized((Codec<Object>) recordCodec);
        this.longs = (LongAggregateOp<?, Object, ?>) longs;
    }

    /** The codec of an exchange edge: record batches, each record by {@code recordCodec} (null: the serializer). */
    public static ShuffleItemCodec forRecords(OperatorInfo info, Codec<?> recordCodec) {
        return new ShuffleItemCodec(info, null, recordCodec, null);
    }

    /**
     * The codec of a window shuffle whose aggregation keeps one long per accumulator (its codec
     * writes the eight bytes of the value: {@link LongValueFrame#holdsLongs}): regular partials of
     * long keys travel and are snapshotted packed, each column in the fewest bytes that hold all of
     * its values (zigzag, so small negative values stay small). The million-key job's partials,
     * keys under 2^20 and small counts, take 4 bytes an entry instead of 16.
     */
    public static ShuffleItemCodec packing(OperatorInfo info, LongAggregateOp<?, ?, ?> longs) {
        return new ShuffleItemCodec(info, longs.accumulatorCodec(), null, longs);
    }

    /** Whether this codec packs regular long-keyed partials ({@link #packing}). */
    public boolean packs() {
        return longs != null;
    }

    /** A fair first size for an item's encoding, so that large partials do not grow their buffer step by step. */
    public static int sizeHint(ShuffleItem item) {
        return switch (item) {
            case FrameAccumulators p -> 32 + p.size * 24; // packed partials take less: the buffer is only a first size
            case RecordBatch b -> 32 + b.size * 32;
            default -> 32;
        };
    }

    public void write(int destination, ShuffleItem item, WireOut out) {
        switch (item) {
            case FrameAccumulators p when longs != null && p.longKeys != null && p.kind == FrameAccumulators.REGULAR ->
                    writePacked(destination, p, out);
            case FrameAccumulators p -> {
                if (p.kind == FrameAccumulators.REGULAR) {
                    out.putByte(PARTIAL).putInt(destination).putInt(p.producer).putLong(p.frameStart);
                } else {
                    out.putByte(p.kind == FrameAccumulators.PREVIEW ? PREVIEW : LATE).putInt(destination).putInt(p.producer).putLong(p.frameStart)
                            .putLong(p.version);
                }
                out.putByte(p.longKeys != null ? LONG_KEYS : OBJECT_KEYS).putInt(p.size);
                for (int i = 0; i < p.size; i++) {
                    if (p.longKeys != null) {
                        writeEntry(p.longKeys[i], p.accumulators[i], out);
                    } else {
                        writeEntry(p.objectKeys[i], p.accumulators[i], out);
                    }
                }
            }
            case RecordBatch b -> {
                out.putByte(RECORDS).putInt(destination).putInt(b.producer).putLong(b.firstIndex).putInt(b.size);
                for (int i = 0; i < b.size; i++) {
                    out.putLong(b.timestamps[i]);
                    records.write(b.records[i], out);
                }
            }
            case ShuffleItem.Watermark w -> out.putByte(WATERMARK).putInt(destination).putInt(w.producer()).putLong(w.watermark());
            case ShuffleItem.EndOfStream e -> out.putByte(END).putInt(destination).putInt(e.producer());
            case ShuffleItem.Credit c -> out.putByte(CREDIT).putInt(destination).putInt(c.producer()).putLong(c.epoch()).putLong(c.amount());
            case ShuffleItem.CreditRange r -> out.putByte(RANGE).putInt(destination).putInt(r.producer()).putLong(r.from()).putLong(r.to());
            case ShuffleItem.Barrier b -> out.putByte(BARRIER).putInt(destination).putInt(b.producer()).putLong(b.id());
        }
    }

    private void writePacked(int destination, FrameAccumulators p, WireOut out) {
        long keyBits = 0;
        long valueBits = 0;
        for (int i = 0; i < p.size; i++) {
            keyBits |= LongColumns.zigzag(p.longKeys[i]);
            valueBits |= LongColumns.zigzag(longs.valueOf(p.accumulators[i]));
        }
        int keyWidth = WireOut.widthOf(keyBits);
        int valueWidth = WireOut.widthOf(valueBits);
        writePackedHead(destination, p.producer, p.frameStart, p.size, keyWidth, valueWidth, out);
        for (int i = 0; i < p.size; i++) {
            out.putLong(LongColumns.zigzag(p.longKeys[i]), keyWidth).putLong(LongColumns.zigzag(longs.valueOf(p.accumulators[i])), valueWidth);
        }
    }

    /**
     * The start of a packed partial of {@code size} entries (destination and producer 0 in a frame
     * snapshot), with room reserved for its entries, which follow: each its zigzagged key in
     * {@code keyWidth} bytes and its zigzagged value in {@code valueWidth} bytes
     * ({@link WireOut#putLong(long, int)}; the widths: {@link WireOut#widthOf} of the columns' OR).
     */
    static void writePackedHead(int destination, int producer, long frameStart, int size, int keyWidth, int valueWidth, WireOut out) {
        out.putByte(PACKED).putInt(destination).putInt(producer).putLong(frameStart).putInt(size).putByte(keyWidth).putByte(valueWidth)
                .reserve(size * (keyWidth + valueWidth) + 8);
    }


    /**
     * The start of what {@link #write} writes for a regular partial of {@code frameStart} with
     * {@code size} entries, for destination 0 from producer 0: a frame snapshot ({@link KeyedFrame#writeSnapshot})
     * follows it with its entries, each by {@link #writeEntry}, straight from its live accumulators.
     */
    public void writeFrameHead(long frameStart, boolean longKeys, int size, WireOut out) {
        out.putByte(PARTIAL).putInt(0).putInt(0).putLong(frameStart).putByte(longKeys ? LONG_KEYS : OBJECT_KEYS).putInt(size);
    }

    /** One entry of a long-keyed partial: the key, then the accumulator. */
    public void writeEntry(long key, Object accumulator, WireOut out) {
        out.putLong(key);
        accumulators.write(accumulator, out);
    }

    /** One entry of an object-keyed partial: the tagged key, then the accumulator. */
    public void writeEntry(Object key, Object accumulator, WireOut out) {
        writeKey(info, key, out);
        accumulators.write(accumulator, out);
    }

    /**
     * An object key as a tagged value: String, Long and Integer directly, any other type through the
     * JVM's serializer; a key the serializer cannot encode fails {@code info}, naming its type.
     */
    public static void writeKey(OperatorInfo info, Object key, WireOut out) {
        switch (key) {
            case String s -> out.putByte(STRING).putString(s);
            case Long l -> out.putByte(LONG).putLong(l);
            case Integer i -> out.putByte(INTEGER).putInt(i);
            default -> {
                out.putByte(SERIALIZED);
                try {
                    Codecs.serialized().write(key, out);
                } catch (RuntimeException e) {
                    throw new OperatorFailure(info, "cannot encode a key of type " + key.getClass().getName()
                            + " for another peer or a snapshot (" + e.getMessage() + "); give it a key the serializer can write,"
                            + " or key by a String or a long (keyByLong)", e);
                }
            }
        }
    }

    /** A key {@link #writeKey} wrote. */
    public static Object readKey(WireIn in) {
        int tag = in.getByte();
        return switch (tag) {
            case STRING -> in.getString();
            case LONG -> in.getLong();
            case INTEGER -> in.getInt();
            case SERIALIZED -> Codecs.serialized().read(in);
            default -> throw in.malformed("unknown key tag " + tag);
        };
    }

    private FrameAccumulators readPacked(WireIn in, int producer) {
        if (longs == null) {
            throw in.malformed("a packed window partial, but aggregation " + info.name() + " does not keep one long per accumulator");
        }
        long frameStart = in.getLong();
        int n = in.getCount(2); // the least an entry can take: a byte of key, a byte of value
        int keyWidth = in.getByte();
        int valueWidth = in.getByte();
        if (keyWidth < 1 || keyWidth > 8 || valueWidth < 1 || valueWidth > 8 || (long) n * (keyWidth + valueWidth) > in.remaining()) {
            throw in.malformed("a packed partial of " + n + " entries of " + keyWidth + " + " + valueWidth + " bytes does not fit in the "
                    + in.remaining() + " bytes left");
        }
        FrameAccumulators p = new FrameAccumulators(producer, frameStart, new long[n], null, n);
        for (int i = 0; i < n; i++) {
            p.longKeys[i] = LongColumns.unzigzag(in.getLong(keyWidth));
            p.accumulators[i] = longs.accumulatorOf(LongColumns.unzigzag(in.getLong(valueWidth)));
        }
        p.size = n;
        return p;
    }

    public Addressed read(WireIn in, int producers, int destinations) {
        Addressed item = readEmbedded(in, producers, destinations);
        if (in.remaining() != 0) {
            throw in.malformed(in.remaining() + " stray byte(s) after a shuffle item");
        }
        return item;
    }

    /** One item from a longer stream (a checkpoint holds several); the rest stays unread. */
    public Addressed readEmbedded(WireIn in, int producers, int destinations) {
        int kind = in.getByte();
        int destination = in.getInt();
        int producer = in.getInt();
        if (destination < 0 || destination >= destinations || producer < 0 || producer >= producers) {
            throw in.malformed("shuffle item for instance " + destination + " from producer " + producer
                    + " outside [0, " + destinations + ") x [0, " + producers + ")");
        }
        ShuffleItem item = switch (kind) {
            case PARTIAL, PREVIEW, LATE -> {
                long frameStart = in.getLong();
                long version = kind == PARTIAL ? 0 : in.getLong();
                int keys = in.getByte();
                int n = in.getCount(keys == LONG_KEYS ? 8 : 1); // the least an entry can take: its key
                if (keys != LONG_KEYS && keys != OBJECT_KEYS) {
                    throw in.malformed("unknown key layout " + keys);
                }
                FrameAccumulators p = new FrameAccumulators(producer, frameStart, keys == LONG_KEYS ? new long[n] : null,
                        keys == LONG_KEYS ? null : new Object[n], n);
                for (int i = 0; i < n; i++) {
                    if (keys == LONG_KEYS) {
                        p.longKeys[i] = in.getLong();
                    } else {
                        p.objectKeys[i] = readKey(in);
                    }
                    p.accumulators[i] = accumulators.read(in);
                }
                p.size = n;
                p.kind = kind == PARTIAL ? FrameAccumulators.REGULAR : kind == PREVIEW ? FrameAccumulators.PREVIEW : FrameAccumulators.LATE;
                p.version = version;
                yield p;
            }
            case PACKED -> readPacked(in, producer);
            case RECORDS -> {
                long first = in.getLong();
                int n = in.getCount(8); // the least a record takes: its time
                if (first < 0 || first > Long.MAX_VALUE - n) {
                    throw in.malformed("record batch from producer " + producer + " numbered from " + first);
                }
                long[] times = new long[n];
                Object[] rs = new Object[n];
                for (int i = 0; i < n; i++) {
                    times[i] = in.getLong();
                    rs[i] = records.read(in);
                }
                yield new RecordBatch(producer, first, times, rs, n);
            }
            case WATERMARK -> new ShuffleItem.Watermark(producer, in.getLong());
            case END -> new ShuffleItem.EndOfStream(producer);
            case CREDIT -> new ShuffleItem.Credit(producer, in.getLong(), in.getLong());
            case RANGE -> new ShuffleItem.CreditRange(producer, in.getLong(), in.getLong());
            case BARRIER -> new ShuffleItem.Barrier(producer, in.getLong());
            default -> throw in.malformed("unknown shuffle item kind " + kind);
        };
        return new Addressed(destination, item);
    }
}
