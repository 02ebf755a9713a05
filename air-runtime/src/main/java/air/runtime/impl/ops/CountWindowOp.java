package air.runtime.impl.ops;

import air.runtime.api.AggregateOp;
import air.runtime.api.Codec;
import air.runtime.api.Codecs;
import air.runtime.api.WindowResult;
import air.runtime.impl.failure.OperatorFailure;
import air.runtime.impl.routing.KeyRouting;
import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.runtime.operator.Operator;
import air.runtime.operator.Rescale;
import air.runtime.plan.CountPart;
import air.runtime.plan.OperatorInfo;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.HashMap;
import java.util.Map;

/**
 * The final half of a count window aggregation, behind a KEY-routed shuffle: takes each key's
 * records as its {@link CountPart}s bring them and emits a window, then forgets it, as soon as it
 * holds {@code size} records.
 *
 * <ul>
 *   <li>Order: parts arrive per pane of event time from each producer, in pane order, each with
 *       the producer's records of that pane and key in the order the producer saw them; parts of
 *       different producers interleave as they arrive. With one source instance (or a key read by
 *       one) the order is thus by pane, then by input order.</li>
 *   <li>A window's result is {@code WindowResult(start, end, key, value)} with {@code [start, end)}
 *       the event times of its records ({@code end} = the newest + 1), carried at the newest
 *       record's time, or at the progress already passed downstream if that is later.</li>
 *   <li>Windows short of {@code size} when the input ends are dropped (as Flink's count windows
 *       do) and counted in {@link #dropped()}.</li>
 * </ul>
 */
public final class CountWindowOp implements Operator, Counted, WindowStats {

    /** A key's window being filled. */
    private static final class Filling {
        Object accumulator;
        long size;
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
    }

    private final OperatorInfo info;
    private final long size;
    private final boolean longKeys;
    private final AggregateOp<Object, Object, Object> op;
    private final Codec<Object> accumulators;
    private final Inlet<Object> next;
    private final Map<Object, Filling> filling = new HashMap<>();
    private long completeBelow = Long.MIN_VALUE;
    private long received;
    private long results;
    private long dropped;

    @SuppressWarnings("unchecked")
    public CountWindowOp(OperatorInfo info, long size, boolean longKeys, AggregateOp<?, ?, ?> op, Inlet<?> next) {
        this.info = info;
        this.size = size;
        this.longKeys = longKeys;
        this.op = (AggregateOp<Object, Object, Object>) op;
        this.accumulators = Codecs.orSerialized(this.op.accumulatorCodec());
        this.next = (Inlet<Object>) next;
    }

    @Override
    public void onItem(int input, Object item) {
        FrameAccumulators p = (FrameAccumulators) item;
        received++;
        boolean emitted = false;
        for (int i = 0; i < p.size; i++) {
            Object key = p.longKeys != null ? (Object) p.longKeys[i] : p.objectKeys[i];
            CountPart part = (CountPart) p.accumulators[i];
            for (int j = 0; j < part.size(); j++) {
                emitted |= add(key, part.time(j), part.accumulator(j));
            }
        }
        if (emitted) {
            next.onEndOfBatch();
        }
    }

    /** Adds one record of {@code key}; true when it completed a window. */
    private boolean add(Object key, long time, Object one) {
        Filling f = filling.get(key);
        if (f == null) {
            f = new Filling();
            filling.put(key, f);
        }
        if (f.accumulator == null) {
            f.accumulator = one;
        } else {
            try {
                op.combine(f.accumulator, one);
            } catch (RuntimeException e) {
                throw new OperatorFailure(info, "combine threw on a record of key " + OperatorFailure.preview(key), e);
            }
        }
        f.first = Math.min(f.first, time);
        f.last = Math.max(f.last, time);
        if (++f.size < size) {
            return false;
        }
        filling.remove(key);
        Object value;
        try {
            value = op.finish(f.accumulator);
        } catch (RuntimeException e) {
            throw new OperatorFailure(info, "finish threw on a count window of key " + OperatorFailure.preview(key), e);
        }
        results++;
        next.accept(Math.max(f.last, completeBelow), new WindowResult<>(f.first, f.last + 1, key, value));
        return true;
    }

    @Override
    public void onProgress(long completeBelow) {
        this.completeBelow = completeBelow;
    }

    /** Windows still short of {@code size} are dropped, as Flink's count windows are, and counted. */
    @Override
    public void onEndOfInput() {
        dropped += filling.size();
        filling.clear();
    }

    /** Windows dropped at the end of input because they held fewer than {@code size} records. */
    public long dropped() {
        return dropped;
    }

    @Override
    public void snapshotTo(WireOut out, long checkpointId) {
        if (accumulators == null) {
            throw new IllegalStateException(info.name() + ": the aggregation " + op.name() + " has no accumulator codec, so its"
                    + " count windows cannot be snapshotted");
        }
        out.putLong(received).putLong(results).putLong(dropped).putLong(completeBelow).putInt(filling.size());
        for (Map.Entry<Object, Filling> e : filling.entrySet()) {
            if (longKeys) {
                out.putLong((Long) e.getKey());
            } else {
                ShuffleItemCodec.writeKey(info, e.getKey(), out);
            }
            Filling f = e.getValue();
            out.putLong(f.size).putLong(f.first).putLong(f.last);
            accumulators.write(f.accumulator, out);
        }
    }

    @Override
    public void restoreFrom(WireIn in) {
        received = in.getLong();
        results = in.getLong();
        dropped = in.getLong();
        completeBelow = in.getLong();
        int n = in.getCount(24);
        filling.clear();
        for (int i = 0; i < n; i++) {
            Object key = longKeys ? (Object) in.getLong() : ShuffleItemCodec.readKey(in);
            Filling f = new Filling();
            f.size = in.getLong();
            f.first = in.getLong();
            f.last = in.getLong();
            f.accumulator = accumulators.read(in);
            filling.put(key, f);
        }
    }

    /**
     * Onto another layout: count windows are routed by key (KEY routing), so each instance keeps
     * the filling windows of the keys it owns now; progress resumes at the lowest of every earlier
     * instance's, the counters sum those of the earlier instances it takes.
     */
    @Override
    public void restoreRescaled(Rescale rescale) {
        Map<Object, Filling> kept = new HashMap<>();
        long in = 0;
        long out = 0;
        long tooShort = 0;
        long lowest = Long.MAX_VALUE;
        for (int i = 0; i < rescale.instancesBefore(); i++) {
            WireIn w = rescale.newest(i); // whole in every checkpoint
            if (w == null) {
                continue;
            }
            restoreFrom(w);
            lowest = Math.min(lowest, completeBelow);
            if (rescale.takes(i)) {
                in += received;
                out += results;
                tooShort += dropped;
            }
            for (Map.Entry<Object, Filling> e : filling.entrySet()) {
                Object key = e.getKey();
                if (KeyRouting.ownerOf(key, longKeys, rescale.instances()) == rescale.instance()) {
                    kept.put(key, e.getValue());
                }
            }
        }
        if (lowest == Long.MAX_VALUE) {
            return;
        }
        filling.clear();
        filling.putAll(kept);
        received = in;
        results = out;
        dropped = tooShort;
        completeBelow = lowest;
    }

    @Override
    public long received() {
        return received;
    }

    @Override
    public long results() {
        return results;
    }

    @Override
    public OperatorInfo info() {
        return info;
    }
}
