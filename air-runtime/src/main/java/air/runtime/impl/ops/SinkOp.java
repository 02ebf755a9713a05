package air.runtime.impl.ops;

import air.runtime.api.CheckpointedSinkWriter;
import air.runtime.api.SinkWriter;
import air.runtime.impl.failure.OperatorFailure;
import air.runtime.operator.Rescale;
import air.runtime.plan.OperatorInfo;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.List;

/** The tail that hands records to a user sink writer. */
public final class SinkOp<T> extends PaddedOperator implements Inlet<T>, Counted, Snapshotting, ChainTail {

    private final OperatorInfo info;
    private final SinkWriter<? super T> writer;
    private final GuardedWriter<? super T> guard;
    private long received;
    @SuppressWarnings("unused")
    private long q00, q01, q02, q03, q04, q05, q06, q07; // after the hot longs: keeps the next object off their cache line

    /** Writes go straight to the user's writer (a call site per operator class); close goes through the guard. */
    public SinkOp(OperatorInfo info, GuardedWriter<? super T> guard) {
        this.info = info;
        this.writer = guard.delegate();
        this.guard = guard;
    }

    @Override
    public void accept(long timestamp, T item) {
        received++;
        try {
            writer.write(item);
        } catch (RuntimeException e) {
            throw new OperatorFailure(info, "threw on " + OperatorFailure.preview(item), e);
        }
    }

    @Override
    public void emit(T item) {
        accept(NO_TIMESTAMP, item);
    }

    @Override
    public void onWatermark(long watermark) {
        try {
            writer.onProgress(watermark == Long.MAX_VALUE ? Long.MAX_VALUE : watermark + 1);
        } catch (RuntimeException e) {
            throw new OperatorFailure(info, "threw on progress to " + watermark, e);
        }
    }

    @Override
    public void onEndOfBatch() {
    }

    @Override
    public void onComplete() {
        try {
            guard.close();
        } catch (RuntimeException e) {
            throw new OperatorFailure(info, "failed to close", e);
        }
    }

    @Override
    public long received() {
        return received;
    }

    @Override
    public void emitBarrier(long id) {
        // the sink ends the chain: its state is in the checkpoint, nothing goes further
    }

    @Override
    public void endAgainAfterRestore() {
        onComplete();
    }

    @Override
    public void snapshotTo(WireOut out, long checkpointId) {
        byte[] state;
        try {
            state = GuardedWriter.checkpointed(writer).snapshot(checkpointId);
        } catch (RuntimeException e) {
            throw new OperatorFailure(info, "failed to snapshot for checkpoint " + checkpointId, e);
        }
        out.putLong(received).putBytes(state);
    }

    @Override
    public boolean snapshotChangesTo(WireOut out, long checkpointId) {
        byte[] changes;
        try {
            changes = GuardedWriter.checkpointed(writer).snapshotChanges(checkpointId);
        } catch (RuntimeException e) {
            throw new OperatorFailure(info, "failed to snapshot its changes for checkpoint " + checkpointId, e);
        }
        if (changes == null) {
            return false;
        }
        out.putLong(received).putBytes(changes);
        return true;
    }

    @Override
    public void restoreChanges(WireIn in) {
        received = in.getLong();
        byte[] changes = in.getBytes();
        try {
            GuardedWriter.checkpointed(writer).restoreChanges(changes);
        } catch (RuntimeException e) {
            throw new OperatorFailure(info, "failed to restore its checkpointed changes", e);
        }
    }

    /** Onto another layout: the writer merges the output of the earlier instances this one takes ({@link Rescale#takes}). */
    @Override
    public void restoreRescaled(Rescale rescale) {
        long count = 0;
        List<List<byte[]>> taken = new ArrayList<>();
        for (int i = 0; i < rescale.instancesBefore(); i++) {
            List<WireIn> states = rescale.states(i);
            if (states == null || !rescale.takes(i)) {
                continue;
            }
            List<byte[]> chain = new ArrayList<>(states.size());
            long newest = 0;
            for (WireIn in : states) {
                newest = in.getLong(); // each state counts every record received up to its checkpoint
                chain.add(in.getBytes());
            }
            count += newest;
            taken.add(chain);
        }
        received = count;
        restoreTaken(GuardedWriter.checkpointed(writer), rescale.checkpoint(), taken);
    }

    private void restoreTaken(CheckpointedSinkWriter<?> w, long checkpoint, List<List<byte[]>> taken) {
        try {
            w.restoreRescaled(checkpoint, taken);
        } catch (UnsupportedOperationException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new OperatorFailure(info, "failed to restore the output of " + taken.size() + " earlier instance(s)", e);
        }
    }

    @Override
    public void restoreFrom(WireIn in) {
        received = in.getLong();
        byte[] state = in.getBytes();
        try {
            GuardedWriter.checkpointed(writer).restore(state);
        } catch (RuntimeException e) {
            throw new OperatorFailure(info, "failed to restore its checkpointed state", e);
        }
    }
}
