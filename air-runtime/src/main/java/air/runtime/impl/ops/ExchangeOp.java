package air.runtime.impl.ops;

import air.runtime.impl.shuffle.RecordBatch;
import air.runtime.impl.shuffle.ShuffleItem;
import air.runtime.impl.shuffle.ShuffleOutput;
import air.runtime.operator.Rescale;
import air.runtime.plan.OperatorInfo;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.Arrays;

/**
 * The sending end of an exchange edge, fused at the end of a chain: records go to the next
 * vertex's instances round robin ({@code rebalance}), to every instance ({@code broadcast}, the
 * same record object to each) or to the owner of their key (a KEY exchange, ahead of a process
 * function), in batches per destination sent at the end of every batch of its vertex, with low
 * watermarks behind them (an exchange carries watermarks under either progress mode: what
 * follows it derives its own progress from them). Barriers and end of stream follow everything
 * sent before them. Records are numbered per destination ({@link RecordBatch}).
 */
public final class ExchangeOp<T> extends PaddedOperator implements Inlet<T>, Counted, Snapshotting, ChainTail {

    /** Records per batch and destination before it is sent without waiting for the end of the vertex's batch. */
    static final int BATCH = 512;

    private final OperatorInfo info;
    private final ShuffleOutput out;
    private final boolean broadcast;
    /** A KEY exchange (ahead of a process function): each record to its key's owner; null for round robin or broadcast. */
    private final KeyHash keys;
    private final int destinations;
    private final long[][] timestamps;
    private final Object[][] records;
    private final int[] sizes;
    /** Per destination: the records sent so far (the index of the next one). */
    private final long[] sent;
    private int next;
    private long received;
    private long watermark = Long.MIN_VALUE;
    @SuppressWarnings("unused")
    private long q00, q01, q02, q03, q04, q05, q06, q07; // after the hot longs: keeps the next object off their cache line

    public ExchangeOp(OperatorInfo info, boolean broadcast, KeyHash keys, ShuffleOutput out) {
        this.info = info;
        this.out = out;
        this.broadcast = broadcast;
        this.keys = keys;
        this.destinations = out.destinations();
        this.timestamps = new long[destinations][BATCH];
        this.records = new Object[destinations][BATCH];
        this.sizes = new int[destinations];
        this.sent = new long[destinations];
    }

    @Override
    public void accept(long timestamp, T item) {
        received++;
        if (broadcast) {
            for (int d = 0; d < destinations; d++) {
                add(d, timestamp, item);
            }
        } else if (keys != null) {
            add(keys.destination(item, destinations), timestamp, item);
        } else {
            int d = next;
            next = d + 1 == destinations ? 0 : d + 1;
            add(d, timestamp, item);
        }
    }

    private void add(int d, long timestamp, Object item) {
        int n = sizes[d];
        timestamps[d][n] = timestamp;
        records[d][n] = item;
        sizes[d] = n + 1;
        if (n + 1 == BATCH) {
            flush(d);
        }
    }

    private void flush(int d) {
        int n = sizes[d];
        if (n == 0) {
            return;
        }
        out.send(d, new RecordBatch(out.producer(), sent[d], Arrays.copyOf(timestamps[d], n), Arrays.copyOf(records[d], n), n));
        sent[d] += n;
        Arrays.fill(records[d], 0, n, null);
        sizes[d] = 0;
    }

    private void flushAll() {
        for (int d = 0; d < destinations; d++) {
            flush(d);
        }
    }

    @Override
    public void emit(T item) {
        accept(NO_TIMESTAMP, item);
    }

    @Override
    public void onWatermark(long wm) {
        flushAll();
        if (wm > watermark) {
            watermark = wm;
            out.broadcast(new ShuffleItem.Watermark(out.producer(), wm));
        }
    }

    @Override
    public void onEndOfBatch() {
        flushAll();
    }

    @Override
    public void onComplete() {
        flushAll();
        out.broadcast(new ShuffleItem.EndOfStream(out.producer()));
    }

    @Override
    public void emitBarrier(long id) {
        flushAll();
        out.broadcast(new ShuffleItem.Barrier(out.producer(), id));
    }

    @Override
    public void endAgainAfterRestore() {
        out.broadcast(new ShuffleItem.EndOfStream(out.producer()));
    }

    @Override
    public void restoredAt(long id) {
        out.restoredAt(id);
    }

    /**
     * Where the numbering stands. Records still buffered are part of this snapshot's past: the
     * barrier that follows the capture sends them first, so a restored producer numbers on after them.
     */
    @Override
    public void snapshotTo(WireOut w, long checkpointId) {
        w.putLong(received).putLong(watermark).putInt(next).putInt(destinations);
        for (int d = 0; d < destinations; d++) {
            w.putLong(sent[d] + sizes[d]);
        }
    }

    /**
     * Onto another layout: the downstream edges start afresh, and so does the numbering of what
     * this instance sends them; the watermark is the lowest of every earlier instance's.
     */
    @Override
    public void restoreRescaled(Rescale rescale) {
        long lowest = Long.MAX_VALUE;
        long count = 0;
        for (int i = 0; i < rescale.instancesBefore(); i++) {
            WireIn in = rescale.newest(i);
            if (in != null) {
                long r = in.getLong();
                lowest = Math.min(lowest, in.getLong());
                count += rescale.takes(i) ? r : 0;
            }
        }
        if (lowest != Long.MAX_VALUE) {
            watermark = lowest;
            received = count;
        }
    }

    @Override
    public void restoreFrom(WireIn in) {
        received = in.getLong();
        watermark = in.getLong();
        next = in.getInt();
        int n = in.getCount(8);
        if (n != destinations) {
            throw in.malformed(info.name() + ": checkpointed for " + n + " destinations, the job has " + destinations);
        }
        for (int d = 0; d < n; d++) {
            sent[d] = in.getLong();
        }
    }

    @Override
    public long received() {
        return received;
    }
}
