package air.runtime.impl.ops;

/**
 * The accumulators of one frame for the keys one destination owns, in columns: either
 * {@code longKeys} or {@code objectKeys} is set. Ownership of the accumulators passes to the receiver.
 */
public final class FramePartial implements ShuffleItem {

    final int producer;
    final long frameStart;
    final long[] longKeys;
    final Object[] objectKeys;
    final Object[] accumulators;
    int size;

    FramePartial(int producer, long frameStart, long[] longKeys, Object[] objectKeys, int capacity) {
        this.producer = producer;
        this.frameStart = frameStart;
        this.longKeys = longKeys;
        this.objectKeys = objectKeys;
        this.accumulators = new Object[capacity];
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
}
