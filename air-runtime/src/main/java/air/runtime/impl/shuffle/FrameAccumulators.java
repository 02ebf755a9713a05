package air.runtime.impl.shuffle;

import java.util.HashSet;
import java.util.Set;

/**
 * The accumulators of one frame for the keys one destination owns, in columns: either
 * {@code longKeys} or {@code objectKeys} is set. Ownership of the accumulators passes to the receiver.
 *
 * <p>A plain window ships each frame once per producer and destination ({@link #REGULAR}), in
 * ascending frame order, which is how the inbound repeat filter drops replays. A window that emits
 * upserts also ships <b>updates</b> of a frame: a {@link #PREVIEW} of a frame still open at the
 * producer (early results) and a {@link #LATE} update of a frame already shipped (records admitted
 * within the allowed lateness). Updates are not deltas: each entry is the key's whole accumulator
 * of that frame at the producer as of {@link #version()} (the producer's count of records received,
 * which a replay reaches at the same input position), so the final half keeps the newest version
 * per (producer, frame, key) and a repeated or replayed update, however differently a replay cut
 * its batches, changes nothing.
 */
public final class FrameAccumulators implements ShuffleItem {

    /** A frame shipped once, when the producer's progress passed it. */
    public static final byte REGULAR = 0;
    /** An open frame's accumulators so far, replaced by newer previews and dropped once the frame is shipped regularly. */
    public static final byte PREVIEW = 1;
    /** A shipped frame's records admitted late so far, per key, replaced by newer versions. */
    public static final byte LATE = 2;

    public final int producer;
    public final long frameStart;
    public final long[] longKeys;
    public final Object[] objectKeys;
    public final Object[] accumulators;
    public int size;
    /** {@link #REGULAR}, {@link #PREVIEW} or {@link #LATE}: set by the sender of an update before it goes out. */
    public byte kind = REGULAR;
    public long version;

    public FrameAccumulators(int producer, long frameStart, long[] longKeys, Object[] objectKeys, int capacity) {
        this.producer = producer;
        this.frameStart = frameStart;
        this.longKeys = longKeys;
        this.objectKeys = objectKeys;
        this.accumulators = new Object[capacity];
    }

    /**
     * A frame's drain by owner, one entry at a time: adds the entry to {@code out[destination]},
     * made with room for {@code capacity} entries when it is the first, doubled when full. Its key
     * is {@code longKey} when {@code longKeyed}, else {@code objectKey}.
     */
    public static void add(FrameAccumulators[] out, int destination, int producer, long frameStart, int capacity, boolean longKeyed, long longKey,
                    Object objectKey, Object accumulator) {
        FrameAccumulators p = out[destination];
        if (p == null) {
            p = out[destination] = new FrameAccumulators(producer, frameStart, longKeyed ? new long[capacity] : null,
                    longKeyed ? null : new Object[capacity], capacity);
        } else if (p.size == p.accumulators.length) {
            p = out[destination] = p.grown();
        }
        if (longKeyed) {
            p.longKeys[p.size] = longKey;
        } else {
            p.objectKeys[p.size] = objectKey;
        }
        p.accumulators[p.size++] = accumulator;
    }

    /** A copy with twice the room. */
    private FrameAccumulators grown() {
        int capacity = accumulators.length * 2;
        FrameAccumulators bigger = new FrameAccumulators(producer, frameStart, longKeys != null ? new long[capacity] : null,
                longKeys != null ? null : new Object[capacity], capacity);
        if (longKeys != null) {
            System.arraycopy(longKeys, 0, bigger.longKeys, 0, size);
        } else {
            System.arraycopy(objectKeys, 0, bigger.objectKeys, 0, size);
        }
        System.arraycopy(accumulators, 0, bigger.accumulators, 0, size);
        bigger.size = size;
        bigger.kind = kind;
        bigger.version = version;
        return bigger;
    }

    @Override
    public int producer() {
        return producer;
    }

    public long frameStart() {
        return frameStart;
    }

    public int size() {
        return size;
    }

    /** {@link #REGULAR}, {@link #PREVIEW} or {@link #LATE}. */
    public byte kind() {
        return kind;
    }

    /** An update's version (the producer's records received when it was sent); 0 for a regular one. */
    public long version() {
        return version;
    }

    /** The key of entry {@code i}, boxed when keys are longs. */
    public Object keyAt(int i) {
        return longKeys != null ? (Object) longKeys[i] : objectKeys[i];
    }

    /** The keys of these accumulators, boxed. */
    public Set<Object> keys() {
        Set<Object> keys = new HashSet<>();
        for (int i = 0; i < size; i++) {
            keys.add(keyAt(i));
        }
        return keys;
    }

    /**
     * Accumulators of this one's entries whose keys are in {@code keys}, sharing their accumulators
     * (this one is not used afterwards).
     */
    public FrameAccumulators only(Set<Object> keys) {
        FrameAccumulators p = new FrameAccumulators(producer, frameStart, longKeys == null ? null : new long[size],
                longKeys == null ? new Object[size] : null, size);
        for (int i = 0; i < size; i++) {
            if (keys.contains(keyAt(i))) {
                if (longKeys != null) {
                    p.longKeys[p.size] = longKeys[i];
                } else {
                    p.objectKeys[p.size] = objectKeys[i];
                }
                p.accumulators[p.size++] = accumulators[i];
            }
        }
        return p;
    }
}
