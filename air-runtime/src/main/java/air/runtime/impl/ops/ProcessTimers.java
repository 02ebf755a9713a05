package air.runtime.impl.ops;

import air.wire.WireIn;
import air.wire.WireOut;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * The timers of one clock (event or processing time) of a keyed process instance: at most one per
 * (key, time), fired in order of time, timers of one time in the order they were registered. The
 * registration number is part of the snapshot, so a restored instance fires in the same order.
 */
final class ProcessTimers {

    /** A registered timer. */
    record Timer(long time, long seq, Object key) { }

    private record Id(Object key, long time) { }

    private final TreeSet<Timer> queue = new TreeSet<>((a, b) -> a.time != b.time ? Long.compare(a.time, b.time) : Long.compare(a.seq, b.seq));
    private final Map<Id, Timer> byId = new HashMap<>();
    private long nextSeq;

    void register(Object key, long time) {
        Id id = new Id(key, time);
        if (!byId.containsKey(id)) {
            Timer t = new Timer(time, nextSeq++, key);
            byId.put(id, t);
            queue.add(t);
        }
    }

    void delete(Object key, long time) {
        Timer t = byId.remove(new Id(key, time));
        if (t != null) {
            queue.remove(t);
        }
    }

    /** The earliest timer's time; {@code Long.MAX_VALUE} when none. */
    long earliest() {
        return queue.isEmpty() ? Long.MAX_VALUE : queue.first().time;
    }

    /** The registration number the next timer gets: timers registered from now on have one at or above it. */
    long nextSeq() {
        return nextSeq;
    }

    /**
     * Removes and returns the earliest timer whose time is below {@code bound} (at or below when
     * {@code inclusive}) and that was registered before {@code seqBelow} ({@link #nextSeq} then), else
     * null: a loop that polls with the {@code nextSeq()} of its start fires only the timers due then,
     * whatever the timers it fires register.
     */
    Timer pollDue(long bound, boolean inclusive, long seqBelow) {
        for (Timer t : queue) {
            if (inclusive ? t.time > bound : t.time >= bound) {
                return null;
            }
            if (t.seq < seqBelow) {
                queue.remove(t);
                byId.remove(new Id(t.key, t.time));
                return t;
            }
        }
        return null;
    }

    int size() {
        return queue.size();
    }

    void snapshotTo(WireOut out, KeyHash keyKind, ProcessState state) {
        out.putLong(nextSeq).putInt(queue.size());
        for (Timer t : queue) {
            out.putLong(t.time).putLong(t.seq);
            state.writeKeyOf(t.key, out, keyKind);
        }
    }

    /**
     * Restore onto another layout: registers the timers of {@code from} (an earlier instance's) on
     * keys that instance {@code instance} of {@code instances} owns now, after those this one holds,
     * in their order.
     */
    void takeOwned(ProcessTimers from, KeyHash keyKind, int instance, int instances) {
        for (Timer t : from.queue) {
            if (keyKind.ownerOfKey(t.key(), instances) == instance) {
                register(t.key(), t.time());
            }
        }
    }

    void restoreFrom(WireIn in, KeyHash keyKind) {
        queue.clear();
        byId.clear();
        nextSeq = in.getLong();
        int n = in.getCount(17);
        for (int i = 0; i < n; i++) {
            long time = in.getLong();
            long seq = in.getLong();
            Object key = ProcessState.readKey(in, keyKind);
            Timer t = new Timer(time, seq, key);
            queue.add(t);
            byId.put(new Id(key, time), t);
        }
    }
}
