package air.runtime.impl.ops;

import air.runtime.api.JoinFunction;
import air.runtime.api.Timestamped;
import air.runtime.api.WindowDefinition;
import air.runtime.impl.failure.OperatorFailure;
import air.runtime.impl.routing.WindowRouter;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.runtime.plan.OperatorInfo;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * An interval join, an {@link air.runtime.operator.Operator} with two inputs: every pair of a left record {@code a}
 * and a right record {@code b} of one key with {@code a.ts} in {@code [b.ts - lower, b.ts + upper]},
 * given to the user's function, emitted once with event time {@code max(a.ts, b.ts)}.
 *
 * <p>Records arrive per pane once progress completes it ({@link PaneJoin}). A right record waits
 * until every left record that can match it has arrived (its {@code ts + upper} is below what has
 * fired), then is joined and dropped; a left record is kept while a right record still to come or
 * still waiting can match it, that is while {@code a.ts >= fired - upper - lower}: state is
 * trimmed as progress passes. The output's progress is held back by {@code upper}, since a pair
 * emitted later can be that much older than what has fired.
 */
public final class IntervalJoinOp extends PaneJoinOperator {

    private final long lower;
    private final long upper;
    private final JoinFunction<Object, Object, Object, Object> joinFn;
    private final Inlet<Object> next;
    private final ShuffleItemCodec leftCodec;
    private final ShuffleItemCodec rightCodec;
    private final BufferedRecords lefts;
    private final BufferedRecords rights;

    @SuppressWarnings("unchecked")
    public IntervalJoinOp(OperatorInfo info, WindowDefinition paneWindow, WindowRouter router, int instance, int instances,
                          KeyedFrameFactory<?> leftFrames, ShuffleItemCodec leftCodec, KeyedFrameFactory<?> rightFrames,
                          ShuffleItemCodec rightCodec, boolean longKeys, long lower, long upper, JoinFunction<?, ?, ?, ?> joinFn,
                          Inlet<?> next) {
        super(info, new PaneJoin(info, paneWindow, router, instance, instances, leftFrames, leftCodec, rightFrames, rightCodec));
        this.lower = lower;
        this.upper = upper;
        this.joinFn = (JoinFunction<Object, Object, Object, Object>) joinFn;
        this.next = (Inlet<Object>) next;
        this.leftCodec = leftCodec;
        this.rightCodec = rightCodec;
        this.lefts = new BufferedRecords(longKeys);
        this.rights = new BufferedRecords(longKeys);
    }

    @Override
    public void onProgress(long completeBelow) {
        panes.progress(completeBelow, this);
        long fired = panes.firedBelow();
        Iterator<Map.Entry<Object, ArrayList<Timestamped<Object>>>> waiting = rights.byKey().entrySet().iterator();
        while (waiting.hasNext()) {
            Map.Entry<Object, ArrayList<Timestamped<Object>>> e = waiting.next();
            ArrayList<Timestamped<Object>> bs = e.getValue();
            int ready = 0;
            while (ready < bs.size() && (fired == Long.MAX_VALUE || bs.get(ready).timestamp() + upper < fired)) {
                join(e.getKey(), bs.get(ready));
                ready++;
            }
            bs.subList(0, ready).clear();
            if (bs.isEmpty()) {
                waiting.remove();
            }
        }
        if (fired == Long.MAX_VALUE) {
            lefts.byKey().clear();
        } else if (fired > Long.MIN_VALUE + upper + lower) {
            lefts.dropBefore(fired - upper - lower);
        }
    }

    @Override
    public void onPane(long start, Map<Object, List<Timestamped<Object>>> left, Map<Object, List<Timestamped<Object>>> right) {
        left.forEach(lefts::addPane);
        right.forEach(rights::addPane);
    }

    /** Right record {@code b}, every left record that can match it here: the pairs, in left order. */
    private void join(Object key, Timestamped<Object> b) {
        List<Timestamped<Object>> as = lefts.byKey().get(key);
        if (as == null) {
            return;
        }
        for (int i = BufferedRecords.firstAtOrAfter(as, b.timestamp() - lower); i < as.size(); i++) {
            Timestamped<Object> a = as.get(i);
            if (a.timestamp() > b.timestamp() + upper) {
                break;
            }
            Object out;
            try {
                out = joinFn.apply(key, a.value(), b.value());
            } catch (RuntimeException ex) {
                throw new OperatorFailure(info, "join function threw on key " + OperatorFailure.preview(key) + ", "
                        + OperatorFailure.preview(a.value()) + " and " + OperatorFailure.preview(b.value()), ex);
            }
            if (out == null) {
                throw new OperatorFailure(info, "join function returned null for key " + OperatorFailure.preview(key),
                        new NullPointerException("join functions must not return null"));
            }
            results++;
            next.accept(Math.max(a.timestamp(), b.timestamp()), out);
        }
    }

    /** A right record still waiting can pair with a left record {@code upper} older than what has fired. */
    @Override
    public long outputProgress(long completeBelow) {
        long fired = panes.paneFloor(completeBelow);
        if (fired == Long.MAX_VALUE) {
            return fired;
        }
        return fired < Long.MIN_VALUE + upper ? Long.MIN_VALUE : fired - upper;
    }

    @Override
    void snapshotBuffers(WireOut out) {
        lefts.snapshotTo(out, leftCodec);
        rights.snapshotTo(out, rightCodec);
    }

    @Override
    void restoreBufferShare(WireIn in, int instance, int instances) {
        BufferedRecords l = lefts.emptyCopy();
        l.restoreFrom(in, leftCodec);
        BufferedRecords r = rights.emptyCopy();
        r.restoreFrom(in, rightCodec);
        lefts.takeOwned(l, instance, instances);
        rights.takeOwned(r, instance, instances);
    }

    @Override
    void restoreBuffers(WireIn in) {
        lefts.restoreFrom(in, leftCodec);
        rights.restoreFrom(in, rightCodec);
    }
}
