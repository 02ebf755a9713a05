package air.runtime.impl.ops;

import air.runtime.api.AggregateOp;
import air.runtime.api.WindowResult;
import air.runtime.impl.failure.OperatorFailure;
import air.runtime.impl.routing.KeyRouting;
import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.plan.OperatorInfo;

/**
 * The frame of an unkeyed window: one accumulator, no map and no key function per record. Its
 * partials carry long key {@link #KEY}, so they travel, merge and checkpoint as a long-keyed
 * frame's do, and under KEY routing the one key has one owner.
 */
public final class SingleKeyFrame<T, A> implements KeyedFrame<T> {

    /** The key every record of an unkeyed stream has. */
    public static final long KEY = 0;

    private final OperatorInfo info;
    private final AggregateOp<? super T, A, ?> op;
    private A acc;

    public SingleKeyFrame(OperatorInfo info, AggregateOp<? super T, A, ?> op) {
        this.info = info;
        this.op = op;
    }

    @Override
    public void accumulate(T item) {
        try {
            A a = acc;
            if (a == null) {
                a = acc = op.create();
            }
            op.accumulate(a, item);
        } catch (RuntimeException e) {
            throw new OperatorFailure(info, "threw on " + OperatorFailure.preview(item), e);
        }
    }

    @Override
    public boolean isEmpty() {
        return acc == null;
    }

    @Override
    public int size() {
        return acc == null ? 0 : 1;
    }

    @Override
    public FrameAccumulators[] drain(int producer, long frameStart, int destinations) {
        FrameAccumulators[] out = new FrameAccumulators[destinations];
        if (acc != null) {
            out[destinations == 1 ? 0 : KeyRouting.ownerOf(KEY, destinations)] = one(producer, frameStart, acc);
            acc = null;
        }
        return out;
    }

    @Override
    public FrameAccumulators drainAll(int producer, long frameStart) {
        FrameAccumulators p = one(producer, frameStart, acc);
        acc = null;
        return p;
    }

    @Override
    public FrameAccumulators copyAll(int producer, long frameStart) {
        if (acc == null) {
            return one(producer, frameStart, null);
        }
        A copy = op.create();
        combine(copy, acc);
        return one(producer, frameStart, copy);
    }

    @Override
    public FrameAccumulators view(long frameStart) {
        return one(0, frameStart, acc);
    }

    /** A partial of {@code a} under key {@link #KEY}, or an empty one for null. */
    private static FrameAccumulators one(int producer, long frameStart, Object a) {
        FrameAccumulators p = new FrameAccumulators(producer, frameStart, new long[1], null, 1);
        if (a != null) {
            p.longKeys[0] = KEY;
            p.accumulators[0] = a;
            p.size = 1;
        }
        return p;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void merge(FrameAccumulators partial) {
        for (int i = 0; i < partial.size; i++) {
            if (partial.longKeys[i] != KEY) {
                throw new IllegalStateException(info.name() + ": a partial of an unkeyed window with key " + partial.longKeys[i]);
            }
            A incoming = (A) partial.accumulators[i];
            if (acc == null) {
                acc = incoming;
            } else {
                combine(acc, incoming);
            }
        }
    }

    @Override
    @SuppressWarnings("unchecked") // the target comes from the same frame factory; in a per-job copy this names the copy
    public void combineInto(KeyedFrame<T> target) {
        if (acc == null) {
            return;
        }
        SingleKeyFrame<T, A> into = (SingleKeyFrame<T, A>) target;
        if (into.acc == null) {
            into.acc = op.create();
        }
        into.combine(into.acc, acc);
    }

    private void combine(A into, A other) {
        try {
            op.combine(into, other);
        } catch (RuntimeException e) {
            throw new OperatorFailure(info, "combine threw", e);
        }
    }

    @Override
    public void emitResults(long start, long end, Inlet<? super WindowResult<?, ?>> next) {
        if (acc == null) {
            return;
        }
        Object value;
        try {
            value = op.finish(acc);
        } catch (RuntimeException e) {
            throw new OperatorFailure(info, "finish threw", e);
        }
        next.accept(end - 1, new WindowResult<>(start, end, KEY, value));
    }
}
