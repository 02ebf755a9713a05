package air.runtime.impl.shuffle;

import java.util.Arrays;

/**
 * Records with their event times, as an exchange edge (rebalance, broadcast) carries them from
 * one producer to one destination. {@code firstIndex} is the number of the batch's first record
 * among everything the producer sent that destination (from 0), so a destination can drop what a
 * replayed producer repeats record by record, however the replay cuts its batches.
 */
public final class RecordBatch implements ShuffleItem {

    final int producer;
    public final long firstIndex;
    public final long[] timestamps;
    public final Object[] records;
    public final int size;

    public RecordBatch(int producer, long firstIndex, long[] timestamps, Object[] records, int size) {
        this.producer = producer;
        this.firstIndex = firstIndex;
        this.timestamps = timestamps;
        this.records = records;
        this.size = size;
    }

    @Override
    public int producer() {
        return producer;
    }

    public long firstIndex() {
        return firstIndex;
    }

    /** This batch without its first {@code n} records (which the destination already has). */
    public RecordBatch withoutFirst(int n) {
        return new RecordBatch(producer, firstIndex + n, Arrays.copyOfRange(timestamps, n, size), Arrays.copyOfRange(records, n, size),
                size - n);
    }

    public int size() {
        return size;
    }
}
