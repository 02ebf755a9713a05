package air.runtime.impl.ops;

import air.runtime.api.AggregateOp;
import air.runtime.api.WindowResult;
import air.runtime.impl.failure.OperatorFailure;
import air.runtime.impl.routing.KeyRouting;
import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.runtime.plan.OperatorInfo;
import air.runtime.serial.StableHash;
import air.runtime.serial.UnstableKeyException;
import air.wire.WireOut;
import java.util.Iterator;
import java.util.Map;
import java.util.function.Function;
import org.eclipse.collections.impl.map.mutable.UnifiedMap;

/**
 * A frame keyed by objects; keys must have stable {@code equals}/{@code hashCode} and not be null.
 * Their owners are placed by {@link StableHash} (KEY routing), whose rule a new key's type is checked against.
 */
public final class ObjectKeyedFrame<T, A> implements KeyedFrame<T> {

    private final OperatorInfo info;
    private final Function<? super T, ?> keyFn;
    private final AggregateOp<? super T, A, ?> op;
    private final UnifiedMap<Object, A> accumulators = new UnifiedMap<>();

    public ObjectKeyedFrame(OperatorInfo info, Function<? super T, ?> keyFn, AggregateOp<? super T, A, ?> op) {
        this.info = info;
        this.keyFn = keyFn;
        this.op = op;
    }

    @Override
    public void accumulate(T item) {
        Object key;
        try {
            key = keyFn.apply(item);
        } catch (RuntimeException e) {
            throw new OperatorFailure(info, "key function threw on " + OperatorFailure.preview(item), e);
        }
        if (key == null) {
            throw new OperatorFailure(info, "key function returned null for " + OperatorFailure.preview(item),
                    new NullPointerException("keys must not be null"));
        }
        try {
            A acc = accumulators.get(key);
            if (acc == null) {
                checkStable(key);
                acc = op.create();
                accumulators.put(key, acc);
            }
            op.accumulate(acc, item);
        } catch (RuntimeException e) {
            throw new OperatorFailure(info, "threw on " + OperatorFailure.preview(item), e);
        }
    }

    /** A new key: its type must hash stably across JVMs (a lookup per class after the first). */
    private void checkStable(Object key) {
        try {
            StableHash.check(key);
        } catch (UnstableKeyException e) {
            throw new OperatorFailure(info, "cannot key by " + OperatorFailure.preview(key), e);
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
        Iterator<Map.Entry<Object, A>> it = accumulators.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Object, A> e = it.next();
            int d = destinations == 1 ? 0 : KeyRouting.ownerOf(e.getKey(), destinations);
            FrameAccumulators.add(out, d, producer, frameStart, capacity, false, 0, e.getKey(), e.getValue());
        }
        accumulators.clear();
        return out;
    }

    @Override
    public FrameAccumulators drainAll(int producer, long frameStart) {
        FrameAccumulators p = drain(producer, frameStart, 1)[0];
        return p != null ? p : new FrameAccumulators(producer, frameStart, null, new Object[0], 0);
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
        codec.writeFrameHead(frameStart, false, accumulators.size(), out);
        Iterator<Map.Entry<Object, A>> it = accumulators.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Object, A> e = it.next();
            codec.writeEntry(e.getKey(), e.getValue(), out);
        }
    }

    private FrameAccumulators entries(int producer, long frameStart, boolean copy) {
        int n = accumulators.size();
        FrameAccumulators p = new FrameAccumulators(producer, frameStart, null, new Object[n], n);
        Iterator<Map.Entry<Object, A>> it = accumulators.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Object, A> e = it.next();
            A acc = e.getValue();
            if (copy) {
                A c = op.create();
                combine(c, acc);
                acc = c;
            }
            p.objectKeys[p.size] = e.getKey();
            p.accumulators[p.size++] = acc;
        }
        return p;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void merge(FrameAccumulators partial) {
        for (int i = 0; i < partial.size; i++) {
            Object key = partial.objectKeys[i];
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
        ObjectKeyedFrame<T, A> into = (ObjectKeyedFrame<T, A>) target;
        Iterator<Map.Entry<Object, A>> it = accumulators.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Object, A> e = it.next();
            A sum = into.accumulators.get(e.getKey());
            if (sum == null) {
                sum = op.create();
                into.accumulators.put(e.getKey(), sum);
            }
            into.combine(sum, e.getValue());
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
        Iterator<Map.Entry<Object, A>> it = accumulators.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Object, A> e = it.next();
            Object value;
            try {
                value = op.finish(e.getValue());
            } catch (RuntimeException ex) {
                throw new OperatorFailure(info, "finish threw for key " + OperatorFailure.preview(e.getKey()), ex);
            }
            next.accept(end - 1, new WindowResult<>(start, end, e.getKey(), value));
        }
    }
}
