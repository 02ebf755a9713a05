package air.runtime.impl.ops;

import air.runtime.api.AggregateOp;
import air.runtime.api.WindowResult;
import air.runtime.impl.failure.OperatorFailure;
import air.runtime.impl.routing.KeyRouting;
import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.runtime.plan.OperatorInfo;
import air.wire.WireOut;
import java.util.function.ToLongFunction;
import org.eclipse.collections.api.iterator.LongIterator;
import org.eclipse.collections.impl.map.mutable.primitive.LongObjectHashMap;

/** A frame keyed by primitive longs: no boxing per record. */
public final class LongKeyedFrame<T, A> implements KeyedFrame<T> {

    private final OperatorInfo info;
    private final ToLongFunction<? super T> keyFn;
    private final AggregateOp<? super T, A, ?> op;
    private final LongObjectHashMap<A> accumulators = new LongObjectHashMap<>();

    public LongKeyedFrame(OperatorInfo info, ToLongFunction<? super T> keyFn, AggregateOp<? super T, A, ?> op) {
        this.info = info;
        this.keyFn = keyFn;
        this.op = op;
    }

    @Override
    public void accumulate(T item) {
        try {
            long key = keyFn.applyAsLong(item);
            A acc = accumulators.get(key);
            if (acc == null) {
                acc = op.create();
                accumulators.put(key, acc);
            }
            op.accumulate(acc, item);
        } catch (RuntimeException e) {
            throw new OperatorFailure(info, "threw on " + OperatorFailure.preview(item), e);
        }
    }

    @Override
    public boolean isEmpty() {
        return accumulators.isEmpty();
    }

    @Override
    public int size() {
        return accumulators.size();
    }

    @Override
    public FrameAccumulators[] drain(int producer, long frameStart, int destinations) {
        FrameAccumulators[] out = new FrameAccumulators[destinations];
        int capacity = destinations == 1 ? accumulators.size() : Math.max(4, 2 * accumulators.size() / destinations);
        LongIterator keys = accumulators.keySet().longIterator();
        while (keys.hasNext()) {
            long key = keys.next();
            int d = destinations == 1 ? 0 : KeyRouting.ownerOf(key, destinations);
            FrameAccumulators.add(out, d, producer, frameStart, capacity, true, key, null, accumulators.get(key));
        }
        accumulators.clear();
        return out;
    }

    @Override
    public FrameAccumulators drainAll(int producer, long frameStart) {
        FrameAccumulators p = drain(producer, frameStart, 1)[0];
        return p != null ? p : new FrameAccumulators(producer, frameStart, new long[0], null, 0);
    }

    @Override
    public FrameAccumulators copyAll(int producer, long frameStart) {
        return entries(producer, frameStart, true);
    }

    @Override
    public FrameAccumulators view(long frameStart) {
        return entries(0, frameStart, false);
    }

    @Override
    public void writeSnapshot(long frameStart, ShuffleItemCodec codec, WireOut out) {
        codec.writeFrameHead(frameStart, true, accumulators.size(), out);
        out.reserve(16 * size()); // a key and, for the usual accumulators, a long: room made once, not by doubling
        LongIterator keys = accumulators.keySet().longIterator();
        while (keys.hasNext()) {
            long key = keys.next();
            codec.writeEntry(key, accumulators.get(key), out);
        }
    }

    private FrameAccumulators entries(int producer, long frameStart, boolean copy) {
        int n = accumulators.size();
        FrameAccumulators p = new FrameAccumulators(producer, frameStart, new long[n], null, n);
        LongIterator keys = accumulators.keySet().longIterator();
        while (keys.hasNext()) {
            long key = keys.next();
            A acc = accumulators.get(key);
            if (copy) {
                A c = op.create();
                combine(c, acc);
                acc = c;
            }
            p.longKeys[p.size] = key;
            p.accumulators[p.size++] = acc;
        }
        return p;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void merge(FrameAccumulators partial) {
        for (int i = 0; i < partial.size; i++) {
            long key = partial.longKeys[i];
            A incoming = (A) partial.accumulators[i];
            A acc = accumulators.get(key);
            if (acc == null) {
                accumulators.put(key, incoming);
            } else {
                combine(acc, incoming);
            }
        }
    }

    @Override
    @SuppressWarnings("unchecked") // the target comes from the same frame factory; in a per-job copy this names the copy
    public void combineInto(KeyedFrame<T> target) {
        LongKeyedFrame<T, A> into = (LongKeyedFrame<T, A>) target;
        LongIterator keys = accumulators.keySet().longIterator();
        while (keys.hasNext()) {
            long key = keys.next();
            A sum = into.accumulators.get(key);
            if (sum == null) {
                sum = op.create();
                into.accumulators.put(key, sum);
            }
            into.combine(sum, accumulators.get(key));
        }
    }

    private void combine(A acc, A other) {
        try {
            op.combine(acc, other);
        } catch (RuntimeException e) {
            throw new OperatorFailure(info, "combine threw", e);
        }
    }

    @Override
    public void emitResults(long start, long end, Inlet<? super WindowResult<?, ?>> next) {
        LongIterator keys = accumulators.keySet().longIterator();
        while (keys.hasNext()) {
            long key = keys.next();
            Object value;
            try {
                value = op.finish(accumulators.get(key));
            } catch (RuntimeException e) {
                throw new OperatorFailure(info, "finish threw for key " + key, e);
            }
            next.accept(end - 1, new WindowResult<>(start, end, key, value));
        }
    }
}
