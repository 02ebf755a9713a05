package air.runtime.impl.ops;

import air.runtime.impl.shuffle.RecordBatch;
import air.runtime.operator.Operator;
import air.runtime.operator.Rescale;
import air.runtime.plan.OperatorInfo;
import air.wire.WireIn;
import air.wire.WireOut;

/**
 * The receiving end of an exchange edge, an {@link Operator} without state: pushes every record
 * of every batch, with its event time, into the chain that follows. Progress and end of stream are
 * the inbound edge's to forward.
 */
public final class ExchangeInOp implements Operator, Counted, WindowStats {

    private final OperatorInfo info;
    private final Inlet<Object> next;
    private long received;

    @SuppressWarnings("unchecked")
    public ExchangeInOp(OperatorInfo info, Inlet<?> next) {
        this.info = info;
        this.next = (Inlet<Object>) next;
    }

    @Override
    public void onItem(int input, Object item) {
        RecordBatch b = (RecordBatch) item;
        received += b.size;
        for (int i = 0; i < b.size; i++) { // here, not in the batch: this class is copied per job, so the call site stays monomorphic
            next.accept(b.timestamps[i], b.records[i]);
        }
        next.onEndOfBatch(); // a batch of the exchange is a batch downstream: where a chain publishes progress
    }

    @Override
    public void onProgress(long completeBelow) {
    }

    @Override
    public void onEndOfInput() {
    }

    @Override
    public void snapshotTo(WireOut out, long checkpointId) {
        out.putLong(received);
    }

    @Override
    public void restoreRescaled(Rescale rescale) {
        received = 0;
        for (int i = 0; i < rescale.instancesBefore(); i++) {
            WireIn in = rescale.newest(i);
            if (in != null && rescale.takes(i)) {
                received += in.getLong();
            }
        }
    }

    @Override
    public void restoreFrom(WireIn in) {
        received = in.getLong();
    }

    @Override public long received() { return received; }

    /** Not a window: no window results (it is left out of {@code air.window.results}). */
    @Override
    public long results() {
        return 0;
    }

    @Override
    public OperatorInfo info() {
        return info;
    }
}
