package air.runtime.impl.ops;

/**
 * Records with their event times, as an exchange edge (rebalance, broadcast) carries them from
 * one producer to one destination. {@code seq} numbers a producer's batches to that destination
 * from 1, so a destination can tell a repeat (a replayed producer) from a new batch.
 */
public final class RecordBatch implements ShuffleItem {

    final int producer;
    final long seq;
    final long[] timestamps;
    final Object[] records;
    final int size;

    RecordBatch(int producer, long seq, long[] timestamps, Object[] records, int size) {
        this.producer = producer;
        this.seq = seq;
        this.timestamps = timestamps;
        this.records = records;
        this.size = size;
    }

    @Override
    public int producer() {
        return producer;
    }

    public long seq() {
        return seq;
    }

    public int size() {
        return size;
    }
}
