package air.runtime.impl.ops;

import air.runtime.api.Timestamped;
import air.runtime.impl.routing.KeyRouting;
import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Timestamped records held per key by a join until progress lets them go, each key's list in
 * event-time order (panes are added oldest first, each sorted). Checkpointed in the shuffle's wire
 * form of a partial whose accumulators are the lists (the side's list codec).
 */
final class BufferedRecords {

    private static final Comparator<Timestamped<Object>> BY_TIME = Comparator.comparingLong(Timestamped::timestamp);

    private final boolean longKeys;
    private final Map<Object, ArrayList<Timestamped<Object>>> byKey = new HashMap<>();

    /** @param longKeys whether keys are longs (boxed here), which the checkpoint writes as primitives */
    BufferedRecords(boolean longKeys) {
        this.longKeys = longKeys;
    }

    /** Appends one pane's records of {@code key}; panes must come oldest first. */
    void addPane(Object key, List<Timestamped<Object>> records) {
        ArrayList<Timestamped<Object>> pane = new ArrayList<>(records);
        pane.sort(BY_TIME);
        byKey.computeIfAbsent(key, k -> new ArrayList<>()).addAll(pane);
    }

    Map<Object, ArrayList<Timestamped<Object>>> byKey() {
        return byKey;
    }

    /** Buffers like these, empty: what a restore onto another layout reads an earlier instance's into. */
    BufferedRecords emptyCopy() {
        return new BufferedRecords(longKeys);
    }

    /**
     * Restore onto another layout: moves the records of {@code from} (an earlier instance's
     * buffers) whose keys instance {@code instance} of {@code instances} owns now into these,
     * hashed as KEY routing hashes them.
     */
    void takeOwned(BufferedRecords from, int instance, int instances) {
        for (Map.Entry<Object, ArrayList<Timestamped<Object>>> e : from.byKey.entrySet()) {
            Object key = e.getKey();
            if (KeyRouting.ownerOf(key, longKeys, instances) == instance) {
                ArrayList<Timestamped<Object>> mine = byKey.computeIfAbsent(key, k -> new ArrayList<>());
                mine.addAll(e.getValue());
                mine.sort(BY_TIME);
            }
        }
    }

    /** The index of the first record of {@code list} at or after {@code time}. */
    static int firstAtOrAfter(List<Timestamped<Object>> list, long time) {
        int lo = 0;
        int hi = list.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (list.get(mid).timestamp() < time) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Drops every record before {@code time}, and keys left with none. */
    void dropBefore(long time) {
        byKey.values().removeIf(list -> {
            list.subList(0, firstAtOrAfter(list, time)).clear();
            return list.isEmpty();
        });
    }

    boolean isEmpty() {
        return byKey.isEmpty();
    }

    int size() {
        int n = 0;
        for (List<Timestamped<Object>> l : byKey.values()) {
            n += l.size();
        }
        return n;
    }

    void snapshotTo(WireOut out, ShuffleItemCodec codec) {
        int n = byKey.size();
        FrameAccumulators p = new FrameAccumulators(0, 0, longKeys ? new long[n] : null, longKeys ? null : new Object[n], n);
        for (Map.Entry<Object, ArrayList<Timestamped<Object>>> e : byKey.entrySet()) {
            if (longKeys) {
                p.longKeys[p.size] = (Long) e.getKey();
            } else {
                p.objectKeys[p.size] = e.getKey();
            }
            p.accumulators[p.size++] = e.getValue();
        }
        codec.write(0, p, out);
    }

    @SuppressWarnings("unchecked")
    void restoreFrom(WireIn in, ShuffleItemCodec codec) {
        byKey.clear();
        FrameAccumulators p = FrameSnapshots.read(in, codec);
        for (int i = 0; i < p.size; i++) {
            Object key = p.longKeys != null ? (Object) p.longKeys[i] : p.objectKeys[i];
            byKey.put(key, new ArrayList<>((List<Timestamped<Object>>) p.accumulators[i]));
        }
    }
}
