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
import air.runtime.plan.OperatorInfo;
import air.runtime.plan.SessionPart;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The final half of a session window aggregation, behind a KEY-routed shuffle: merges the
 * {@link SessionPart}s of its keys into sessions and emits each session once progress has passed
 * its end (its last record + gap), then forgets it.
 *
 * <ul>
 *   <li>A part {@code [first, last]} joins every open session of its key whose
 *       {@code [start, last + gap)} overlaps or touches {@code [first, last + gap)} (Flink's
 *       {@code EventTimeSessionWindows}: a record exactly one gap after the last one continues the
 *       session); a part that bridges two sessions merges them. Open sessions of a key never
 *       overlap or touch, so one pass over them does.</li>
 *   <li>Progress counts in whole panes: parts travel per pane of event time, and a pane's part
 *       arrives only once its pane is complete at its producer, so only the panes ending at or
 *       before {@code completeBelow} rounded down to a pane are known complete here. A session
 *       closes when its end is below that bound: a record at its end would still join it, so the
 *       pane holding the end must be complete too (or the input ended).</li>
 *   <li>Results are {@code WindowResult(start, end, key, value)} with event time {@code end - 1}.</li>
 * </ul>
 *
 * <p>It knows neither the progress mode nor the routing. Late records never reach it: the partial
 * half drops and counts them, as it does for every window.
 */
public final class SessionWindowOp implements Operator, Counted, WindowStats {

    /** One open session of a key; replaced by a new object when it merges, so a queued end never changes. */
    private static final class Session {
        final Object key;
        final long start;
        final long last;
        final long end;
        final Object accumulator;
        boolean closed;

        Session(Object key, long start, long last, long gap, Object accumulator) {
            this.key = key;
            this.start = start;
            this.last = last;
            this.end = last + gap;
            this.accumulator = accumulator;
        }
    }

    private final OperatorInfo info;
    private final long gap;
    private final long pane;
    private final boolean longKeys;
    private final AggregateOp<Object, Object, Object> op;
    private final Codec<Object> accumulators;
    private final Inlet<Object> next;
    /** Each key's open sessions, by start. */
    private final Map<Object, List<Session>> open = new HashMap<>();
    /** Open sessions by end, with merged-away ones left in and skipped. */
    private final PriorityQueue<Session> byEnd = new PriorityQueue<>(Comparator.comparingLong((Session s) -> s.end)
            .thenComparingLong(s -> s.start));
    private final List<Session> overlapping = new ArrayList<>();
    private long received;
    private long results;
    private long sessions;

    /**
     * @param op       the user's aggregation (the parts carry its accumulators)
     * @param longKeys whether keys are {@code keyByLong} longs (written as such in snapshots)
     */
    @SuppressWarnings("unchecked")
    public SessionWindowOp(OperatorInfo info, long gap, long pane, boolean longKeys, AggregateOp<?, ?, ?> op, Inlet<?> next) {
        this.info = info;
        this.gap = gap;
        this.pane = pane;
        this.longKeys = longKeys;
        this.op = (AggregateOp<Object, Object, Object>) op;
        this.accumulators = Codecs.orSerialized(this.op.accumulatorCodec());
        this.next = (Inlet<Object>) next;
    }

    @Override
    public void onItem(int input, Object item) {
        FrameAccumulators p = (FrameAccumulators) item;
        received++;
        for (int i = 0; i < p.size; i++) {
            Object key = p.longKeys != null ? (Object) p.longKeys[i] : p.objectKeys[i];
            SessionPart part = (SessionPart) p.accumulators[i];
            add(key, part.first(), part.last(), part.accumulator());
        }
    }

    /** Merges records {@code [first, last]} of {@code key}, aggregated in {@code accumulator}, into the key's sessions. */
    private void add(Object key, long first, long last, Object accumulator) {
        List<Session> sessions = open.get(key);
        if (sessions == null) {
            sessions = new ArrayList<>(2);
            open.put(key, sessions);
        }
        long start = first;
        long newest = last;
        int at = 0;
        overlapping.clear();
        for (int i = 0; i < sessions.size(); i++) {
            Session s = sessions.get(i);
            if (s.start <= last + gap && first <= s.end) { // overlapping or touching
                overlapping.add(s);
                start = Math.min(start, s.start);
                newest = Math.max(newest, s.last);
            } else if (s.start < first) {
                at = i + 1;
            }
        }
        Object merged = accumulator;
        if (!overlapping.isEmpty()) {
            // the earliest session's accumulator takes the others in order of start, the new records by their first time
            merged = null;
            boolean partIn = false;
            for (Session s : overlapping) {
                if (!partIn && first < s.start) {
                    merged = combine(merged, accumulator);
                    partIn = true;
                }
                merged = combine(merged, s.accumulator);
                s.closed = true;
                sessions.remove(s);
                this.sessions--;
            }
            if (!partIn) {
                merged = combine(merged, accumulator);
            }
            at = 0;
            while (at < sessions.size() && sessions.get(at).start < start) {
                at++;
            }
        }
        Session s = new Session(key, start, newest, gap, merged);
        sessions.add(at, s);
        byEnd.add(s);
        this.sessions++;
    }

    private Object combine(Object into, Object other) {
        if (into == null) {
            return other;
        }
        try {
            op.combine(into, other);
        } catch (RuntimeException e) {
            throw new OperatorFailure(info, "combine threw merging two parts of a session", e);
        }
        return into;
    }

    /** Parts travel per pane: only the panes that end by {@code completeBelow}, rounded down to a pane, are all here. */
    private long bound(long completeBelow) {
        return completeBelow == Long.MAX_VALUE ? Long.MAX_VALUE : completeBelow - Math.floorMod(completeBelow, pane);
    }

    /**
     * A session still open ends at or after the bound (one ending exactly there waits for a record
     * at its end), and is emitted at {@code end - 1}: so the output is complete below {@code bound - 1}.
     */
    @Override
    public long outputProgress(long completeBelow) {
        long bound = bound(completeBelow);
        return bound == Long.MAX_VALUE || bound == Long.MIN_VALUE ? bound : bound - 1;
    }

    @Override
    public void onProgress(long completeBelow) {
        long bound = bound(completeBelow);
        Session s;
        while ((s = byEnd.peek()) != null && (s.end < bound || bound == Long.MAX_VALUE)) {
            byEnd.poll();
            if (s.closed) {
                continue; // merged into a later one
            }
            s.closed = true;
            List<Session> sessions = open.get(s.key);
            sessions.remove(s);
            if (sessions.isEmpty()) {
                open.remove(s.key);
            }
            this.sessions--;
            Object value;
            try {
                value = op.finish(s.accumulator);
            } catch (RuntimeException e) {
                throw new OperatorFailure(info, "finish threw on the session [" + s.start + ", " + s.end + ") of key "
                        + OperatorFailure.preview(s.key), e);
            }
            results++;
            next.accept(s.end - 1, new WindowResult<>(s.start, s.end, s.key, value));
        }
    }

    @Override
    public void onEndOfInput() {
        if (sessions != 0) {
            throw new IllegalStateException(info.name() + ": " + sessions + " session(s) still open at the end of input: progress never"
                    + " passed their end");
        }
    }

    /** Sessions open now (for tests and diagnostics). */
    public long openSessions() {
        return sessions;
    }

    @Override
    public void snapshotTo(WireOut out, long checkpointId) {
        if (accumulators == null) {
            throw new IllegalStateException(info.name() + ": the aggregation " + op.name() + " has no accumulator codec, so its"
                    + " sessions cannot be snapshotted");
        }
        out.putLong(received).putLong(results).putLong(sessions);
        for (List<Session> list : open.values()) {
            for (Session s : list) {
                if (longKeys) {
                    out.putLong((Long) s.key);
                } else {
                    ShuffleItemCodec.writeKey(info, s.key, out);
                }
                out.putLong(s.start).putLong(s.last);
                accumulators.write(s.accumulator, out);
            }
        }
    }

    @Override
    public void restoreFrom(WireIn in) {
        received = in.getLong();
        results = in.getLong();
        long n = in.getLong();
        if (n < 0) {
            throw in.malformed(info.name() + ": " + n + " open sessions");
        }
        open.clear();
        byEnd.clear();
        sessions = 0;
        for (long i = 0; i < n; i++) {
            Object key = longKeys ? (Object) in.getLong() : ShuffleItemCodec.readKey(in);
            long start = in.getLong();
            long last = in.getLong();
            Session s = new Session(key, start, last, gap, accumulators.read(in));
            open.computeIfAbsent(key, k -> new ArrayList<>(2)).add(s);
            byEnd.add(s);
            sessions++;
        }
        for (List<Session> list : open.values()) {
            list.sort(Comparator.comparingLong(s -> s.start));
        }
    }

    /**
     * Onto another layout: session windows are routed by key (KEY routing, whatever the job's), so
     * each instance keeps the open sessions of the keys it owns now; the counters sum those of the
     * earlier instances it takes. Each earlier state is read through {@link #restoreFrom}.
     */
    @Override
    public void restoreRescaled(Rescale rescale) {
        Map<Object, List<Session>> kept = new HashMap<>();
        long in = 0;
        long out = 0;
        for (int i = 0; i < rescale.instancesBefore(); i++) {
            WireIn w = rescale.newest(i); // whole in every checkpoint
            if (w == null) {
                continue;
            }
            restoreFrom(w);
            if (rescale.takes(i)) {
                in += received;
                out += results;
            }
            for (Map.Entry<Object, List<Session>> e : open.entrySet()) {
                if (KeyRouting.ownerOf(e.getKey(), longKeys, rescale.instances()) == rescale.instance()) {
                    kept.put(e.getKey(), e.getValue());
                }
            }
        }
        open.clear();
        byEnd.clear();
        sessions = 0;
        for (Map.Entry<Object, List<Session>> e : kept.entrySet()) {
            open.put(e.getKey(), e.getValue());
            for (Session s : e.getValue()) {
                byEnd.add(s);
                sessions++;
            }
        }
        received = in;
        results = out;
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
