package air.runtime.impl.ops;

import air.runtime.api.LongAggregateOp;
import air.runtime.api.WindowResult;
import air.runtime.impl.failure.OperatorFailure;
import air.runtime.impl.routing.KeyRouting;
import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.PackedPairWriter;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.runtime.plan.KeySpec;
import air.runtime.plan.OperatorInfo;
import air.runtime.plan.WindowAggregation;
import air.wire.WireOut;
import java.util.function.ToLongFunction;
import org.eclipse.collections.api.iterator.LongIterator;
import org.eclipse.collections.impl.map.mutable.primitive.LongLongHashMap;

/**
 * A frame keyed by primitive longs whose accumulators are one long each ({@link LongAggregateOp}:
 * count, sum, min, max): one primitive map, no object per key. Against {@link LongKeyedFrame}
 * (an accumulator object per key) a large frame leaves the collector nothing to copy and a
 * checkpoint no pointer to follow per key. Partials that leave the frame (shipped, copied,
 * viewed) hold accumulator objects as every other frame's do, and travel packed
 * ({@link ShuffleItemCodec#packing}); a snapshot writes the map packed directly, with no object made.
 */
public final class LongValueFrame<T, A> implements KeyedFrame<T> {

    private final OperatorInfo info;
    private final ToLongFunction<? super T> keyFn;
    private final LongAggregateOp<? super T, A, ?> op;
    private final long identity;
    /** Count and sum ({@link LongAggregateOp#additive}): a record and a partial's entry update their key in one lookup. */
    private final boolean additive;
    private final LongLongHashMap values = new LongLongHashMap();
    /** Writes snapshots in one pass over {@link #values}. */
    private final PackedPairWriter packer = new PackedPairWriter();

    public LongValueFrame(OperatorInfo info, ToLongFunction<? super T> keyFn, LongAggregateOp<? super T, A, ?> op) {
        this.info = info;
        this.keyFn = keyFn;
        this.op = op;
        this.identity = op.identity();
        this.additive = op.additive() && identity == 0;
    }

    /**
     * Whether aggregation {@code agg} gets this frame and packed partials: keyed by a long, with one
     * long per accumulator that its codec writes as eight bytes. One rule for the frame, the codec
     * and the operator's descriptor in checkpoints, so that all three agree.
     */
    public static boolean fits(WindowAggregation agg) {
        return agg.key() instanceof KeySpec.LongKey && agg.op() instanceof LongAggregateOp<?, ?, ?> longs && holdsLongs(longs);
    }

    /**
     * Whether {@code op}'s accumulator codec writes an accumulator as the eight bytes of its value,
     * which this frame's snapshots rely on; checked once per operator by encoding a probe value.
     */
    @SuppressWarnings("unchecked")
    public static boolean holdsLongs(LongAggregateOp<?, ?, ?> op) {
        if (op.accumulatorCodec() == null) {
            return false;
        }
        LongAggregateOp<?, Object, ?> o = (LongAggregateOp<?, Object, ?>) op;
        long probe = 0x0123_4567_89ab_cdefL;
        WireOut viaCodec = new WireOut(8);
        WireOut direct = new WireOut(8);
        try {
            Object acc = o.accumulatorOf(probe);
            o.accumulatorCodec().write(acc, viaCodec);
            direct.putLong(probe);
            return o.valueOf(acc) == probe && viaCodec.buffer().equals(direct.buffer());
        } catch (RuntimeException e) {
            return false;
        }
    }

    @Override
    public void accumulate(T item) {
        try {
            long key = keyFn.applyAsLong(item);
            if (additive) {
                values.addToValue(key, op.increment(item));
            } else {
                values.put(key, op.accumulateLong(values.getIfAbsent(key, identity), item));
            }
        } catch (RuntimeException e) {
            throw new OperatorFailure(info, "threw on " + OperatorFailure.preview(item), e);
        }
    }

    @Override
    public boolean isEmpty() {
        return values.isEmpty();
    }

    @Override
    public int size() {
        return values.size();
    }

    @Override
    public FrameAccumulators[] drain(int producer, long frameStart, int destinations) {
        FrameAccumulators[] out = new FrameAccumulators[destinations];
        int capacity = destinations == 1 ? values.size() : Math.max(4, 2 * values.size() / destinations);
        LongIterator keys = values.keySet().longIterator();
        while (keys.hasNext()) {
            long key = keys.next();
            int d = destinations == 1 ? 0 : KeyRouting.ownerOf(key, destinations);
            FrameAccumulators.add(out, d, producer, frameStart, capacity, true, key, null, op.accumulatorOf(values.get(key)));
        }
        values.clear();
        return out;
    }

    @Override
    public FrameAccumulators drainAll(int producer, long frameStart) {
        FrameAccumulators p = drain(producer, frameStart, 1)[0];
        return p != null ? p : new FrameAccumulators(producer, frameStart, new long[0], null, 0);
    }

    /** Accumulator objects made from the values: copies by nature, so a copy and a view are the same. */
    @Override
    public FrameAccumulators copyAll(int producer, long frameStart) {
        int n = values.size();
        FrameAccumulators p = new FrameAccumulators(producer, frameStart, new long[n], null, n);
        LongIterator keys = values.keySet().longIterator();
        while (keys.hasNext()) {
            long key = keys.next();
            p.longKeys[p.size] = key;
            p.accumulators[p.size++] = op.accumulatorOf(values.get(key));
        }
        return p;
    }

    @Override
    public FrameAccumulators view(long frameStart) {
        return copyAll(0, frameStart);
    }

    /**
     * The entries packed as the codec packs a partial ({@link ShuffleItemCodec#packing}: a pass for
     * the columns' widths, then the entries), or else the values as the accumulator codec writes
     * them (eight bytes each: {@link #holdsLongs}); no object made either way.
     */
    @Override
    public void writeSnapshot(long frameStart, ShuffleItemCodec codec, WireOut out) {
        if (codec.packs()) {
            packer.write(frameStart, values, out);
            return;
        }
        codec.writeFrameHead(frameStart, true, values.size(), out);
        out.reserve(16 * size()); // a key and, for the usual accumulators, a long: room made once, not by doubling
        LongIterator keys = values.keySet().longIterator();
        while (keys.hasNext()) {
            long key = keys.next();
            out.putLong(key).putLong(values.get(key));
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public void merge(FrameAccumulators partial) {
        try {
            for (int i = 0; i < partial.size; i++) {
                long key = partial.longKeys[i];
                combine(values, key, op.valueOf((A) partial.accumulators[i]));
            }
        } catch (RuntimeException e) {
            throw new OperatorFailure(info, "combine threw", e);
        }
    }

    @Override
    @SuppressWarnings("unchecked") // the target comes from the same frame factory; in a per-job copy this names the copy
    public void combineInto(KeyedFrame<T> target) {
        LongValueFrame<T, A> into = (LongValueFrame<T, A>) target;
        try {
            LongIterator keys = values.keySet().longIterator();
            while (keys.hasNext()) {
                long key = keys.next();
                combine(into.values, key, values.get(key));
            }
        } catch (RuntimeException e) {
            throw new OperatorFailure(info, "combine threw", e);
        }
    }

    /** Combines {@code value} into {@code key}'s value in {@code into}: one lookup when additive. */
    private void combine(LongLongHashMap into, long key, long value) {
        if (additive) {
            into.addToValue(key, value);
        } else {
            into.put(key, op.combineLong(into.getIfAbsent(key, identity), value));
        }
    }

    @Override
    public void emitResults(long start, long end, Inlet<? super WindowResult<?, ?>> next) {
        LongIterator keys = values.keySet().longIterator();
        while (keys.hasNext()) {
            long key = keys.next();
            Object value;
            try {
                value = op.finishLong(values.get(key));
            } catch (RuntimeException e) {
                throw new OperatorFailure(info, "finish threw for key " + key, e);
            }
            next.accept(end - 1, new WindowResult<>(start, end, key, value));
        }
    }
}
