package air.runtime.impl.ops;

import air.runtime.api.JoinFunction;
import air.runtime.api.JoinType;
import air.runtime.api.Timestamped;
import air.runtime.api.WindowDefinition;
import air.runtime.impl.failure.OperatorFailure;
import air.runtime.impl.routing.WindowRouter;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.runtime.plan.OperatorInfo;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A lookup join against a table kept by a changelog, an {@link air.runtime.operator.Operator} with two inputs: input 0
 * the stream, input 1 the changes. The semantics are those of event time: a record sees, per key,
 * the latest change at or before its own event time, a change before a record of the same time,
 * whatever order they arrived in. Records and changes come per pane once progress completes it
 * ({@link PaneJoin}) and are replayed pane by pane, each key's in event-time order; a change whose
 * value ({@code valueFn}) is null deletes the key. {@code INNER} drops a record whose key has no
 * value; {@code LEFT} gives the join function null. A record keeps its event time.
 *
 * <p>The table holds each key's latest change (only), checkpointed with the changes' list codec.
 */
public final class LookupJoinOp extends PaneJoinOperator {

    private final JoinType type;
    private final Function<Object, Object> valueFn;
    private final JoinFunction<Object, Object, Object, Object> joinFn;
    private final Inlet<Object> next;
    private final ShuffleItemCodec tableCodec;
    /** Per key its latest change, as a list of one (the form the changes' codec writes). */
    private final BufferedRecords table;

    @SuppressWarnings("unchecked")
    public LookupJoinOp(OperatorInfo info, WindowDefinition paneWindow, WindowRouter router, int instance, int instances,
                        KeyedFrameFactory<?> streamFrames, ShuffleItemCodec streamCodec, KeyedFrameFactory<?> tableFrames,
                        ShuffleItemCodec tableCodec, boolean longKeys, JoinType type, Function<?, ?> valueFn,
                        JoinFunction<?, ?, ?, ?> joinFn, Inlet<?> next) {
        super(info, new PaneJoin(info, paneWindow, router, instance, instances, streamFrames, streamCodec, tableFrames, tableCodec));
        this.type = type;
        this.valueFn = (Function<Object, Object>) valueFn;
        this.joinFn = (JoinFunction<Object, Object, Object, Object>) joinFn;
        this.next = (Inlet<Object>) next;
        this.tableCodec = tableCodec;
        this.table = new BufferedRecords(longKeys);
    }

    @Override
    public void onProgress(long completeBelow) {
        panes.progress(completeBelow, this);
    }

    /** One complete pane: per key, its records and changes merged by event time, changes first at equal times. */
    @Override
    public void onPane(long start, Map<Object, List<Timestamped<Object>>> records, Map<Object, List<Timestamped<Object>>> changes) {
        for (Map.Entry<Object, List<Timestamped<Object>>> e : records.entrySet()) {
            Object key = e.getKey();
            List<Timestamped<Object>> rs = sorted(e.getValue());
            List<Timestamped<Object>> cs = sorted(changes.getOrDefault(key, List.of()));
            int c = 0;
            for (Timestamped<Object> r : rs) {
                while (c < cs.size() && cs.get(c).timestamp() <= r.timestamp()) {
                    apply(key, cs.get(c++));
                }
                lookUp(key, r);
            }
            while (c < cs.size()) {
                apply(key, cs.get(c++));
            }
        }
        for (Map.Entry<Object, List<Timestamped<Object>>> e : changes.entrySet()) {
            if (!records.containsKey(e.getKey())) {
                List<Timestamped<Object>> cs = sorted(e.getValue());
                apply(e.getKey(), cs.get(cs.size() - 1)); // no record of the key in this pane sees the ones before
            }
        }
    }

    private static List<Timestamped<Object>> sorted(List<Timestamped<Object>> list) {
        ArrayList<Timestamped<Object>> copy = new ArrayList<>(list);
        copy.sort((a, b) -> Long.compare(a.timestamp(), b.timestamp()));
        return copy;
    }

    private void apply(Object key, Timestamped<Object> change) {
        if (value(change) == null) {
            table.byKey().remove(key);
        } else {
            ArrayList<Timestamped<Object>> one = new ArrayList<>(1);
            one.add(change);
            table.byKey().put(key, one);
        }
    }

    private Object value(Timestamped<Object> change) {
        try {
            return valueFn.apply(change.value());
        } catch (RuntimeException ex) {
            throw new OperatorFailure(info, "table value function threw on " + OperatorFailure.preview(change.value()), ex);
        }
    }

    private void lookUp(Object key, Timestamped<Object> record) {
        List<Timestamped<Object>> latest = table.byKey().get(key);
        Object value = latest == null ? null : value(latest.get(0));
        if (value == null && type == JoinType.INNER) {
            return;
        }
        Object out;
        try {
            out = joinFn.apply(key, record.value(), value);
        } catch (RuntimeException ex) {
            throw new OperatorFailure(info, "join function threw on " + OperatorFailure.preview(record.value()), ex);
        }
        if (out == null) {
            throw new OperatorFailure(info, "join function returned null for " + OperatorFailure.preview(record.value()),
                    new NullPointerException("join functions must not return null"));
        }
        results++;
        next.accept(record.timestamp(), out);
    }

    /** A record is emitted when its pane completes, with its own time: the output is complete below the panes that fired. */
    @Override
    public long outputProgress(long completeBelow) {
        return panes.paneFloor(completeBelow);
    }

    @Override
    void snapshotBuffers(WireOut out) {
        table.snapshotTo(out, tableCodec);
    }

    @Override
    void restoreBufferShare(WireIn in, int instance, int instances) {
        BufferedRecords t = table.emptyCopy();
        t.restoreFrom(in, tableCodec);
        table.takeOwned(t, instance, instances);
    }

    @Override
    void restoreBuffers(WireIn in) {
        table.restoreFrom(in, tableCodec);
    }
}
