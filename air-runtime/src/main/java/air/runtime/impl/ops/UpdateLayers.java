package air.runtime.impl.ops;

import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The final half's store of window updates ({@link FrameAccumulators#PREVIEW} and
 * {@link FrameAccumulators#LATE} partials): per (frame, producer, key) the newest whole accumulator
 * sent, and its version. An update replaces an entry only with a newer version, which is what makes
 * updates idempotent: a repeat, or a replay cut into other batches, changes nothing already held.
 * A frame's regular partial from a producer replaces that producer's previews of it (it holds all
 * they held). Kept apart from the merged regular frames because an entry is replaced, not combined.
 */
final class UpdateLayers<T> {

    /** One key's newest accumulator from one producer, owned here and never changed: it is replaced. */
    private static final class Entry {
        long version;
        Object accumulator;

        Entry(long version, Object accumulator) {
            this.version = version;
            this.accumulator = accumulator;
        }
    }

    /** One producer's updates of one frame, by key; long keys are kept boxed (updates are few). */
    private static final class Layer {
        final boolean longKeys;
        final Map<Object, Entry> entries = new HashMap<>();

        Layer(boolean longKeys) {
            this.longKeys = longKeys;
        }

        /** The entries as one partial sharing the kept accumulators: merged into a scratch frame only, never changed. */
        FrameAccumulators partial(long frameStart) {
            int n = entries.size();
            FrameAccumulators p = new FrameAccumulators(0, frameStart, longKeys ? new long[n] : null, longKeys ? null : new Object[n], n);
            for (Map.Entry<Object, Entry> e : entries.entrySet()) {
                if (longKeys) {
                    p.longKeys[p.size] = (Long) e.getKey();
                } else {
                    p.objectKeys[p.size] = e.getKey();
                }
                p.accumulators[p.size++] = e.getValue().accumulator;
            }
            return p;
        }
    }

    private final KeyedFrameFactory<T> frames;
    private final TreeMap<Long, Map<Integer, Layer>> byFrame = new TreeMap<>();

    UpdateLayers(KeyedFrameFactory<T> frames) {
        this.frames = frames;
    }

    /** Takes the entries of {@code update} newer than those held; @return the keys it changed. */
    Set<Object> update(FrameAccumulators update) {
        Layer layer = byFrame.computeIfAbsent(update.frameStart(), s -> new HashMap<>())
                .computeIfAbsent(update.producer(), p -> new Layer(update.longKeys != null));
        Set<Object> changed = new HashSet<>();
        for (int i = 0; i < update.size; i++) {
            Object key = update.keyAt(i);
            Entry held = layer.entries.get(key);
            if (held == null) {
                layer.entries.put(key, new Entry(update.version, update.accumulators[i]));
            } else if (update.version > held.version) {
                held.version = update.version;
                held.accumulator = update.accumulators[i];
            } else {
                continue;
            }
            changed.add(key);
        }
        return changed;
    }

    /** The regular partial of frame {@code start} from {@code producer} arrived: it holds everything its previews held. */
    void regularArrived(int producer, long start) {
        Map<Integer, Layer> layers = byFrame.get(start);
        if (layers != null && layers.remove(producer) != null && layers.isEmpty()) {
            byFrame.remove(start);
        }
    }

    /** Combines every update of the frames starting in {@code [from, to)} into {@code sum}, leaving them as they are. */
    void combineInto(long from, long to, KeyedFrame<T> sum) {
        for (Map.Entry<Long, Map<Integer, Layer>> frame : byFrame.subMap(from, true, to, false).entrySet()) {
            for (Layer layer : frame.getValue().values()) {
                KeyedFrame<T> scratch = frames.create();
                scratch.merge(layer.partial(frame.getKey())); // takes the kept accumulators in, unchanged, for this combine only
                scratch.combineInto(sum);
            }
        }
    }

    /** Frees the updates of the frames starting at or before {@code through}. */
    void evictThrough(long through) {
        byFrame.headMap(through, true).clear();
    }

    boolean isEmpty() {
        return byFrame.isEmpty();
    }

    void snapshotTo(WireOut out, ShuffleItemCodec codec) {
        List<long[]> index = new ArrayList<>();
        for (Map.Entry<Long, Map<Integer, Layer>> frame : byFrame.entrySet()) {
            for (int producer : frame.getValue().keySet()) {
                index.add(new long[] {frame.getKey(), producer});
            }
        }
        out.putInt(index.size());
        for (long[] at : index) {
            Layer layer = byFrame.get(at[0]).get((int) at[1]);
            FrameAccumulators p = layer.partial(at[0]);
            out.putInt((int) at[1]);
            codec.write(0, p, out);
            for (int i = 0; i < p.size; i++) {
                out.putLong(layer.entries.get(p.keyAt(i)).version);
            }
        }
    }

    void restoreFrom(WireIn in, ShuffleItemCodec codec) {
        byFrame.clear();
        for (int n = in.getCount(4); n > 0; n--) {
            int producer = in.getInt();
            FrameAccumulators p = FrameSnapshots.read(in, codec);
            Layer layer = new Layer(p.longKeys != null);
            for (int i = 0; i < p.size; i++) {
                layer.entries.put(p.keyAt(i), new Entry(in.getLong(), p.accumulators[i]));
            }
            byFrame.computeIfAbsent(p.frameStart(), s -> new HashMap<>()).put(producer, layer);
        }
    }
}
