package air.runtime.impl.ops;

import air.runtime.plan.OperatorInfo;

/**
 * A stateless operator's plumbing: its name and downstream inlet, and the per-batch signals passed
 * on unchanged. Only these cold methods live here; each subclass writes its own per-record
 * {@code accept} and {@code emit} so that their call sites keep a type profile per operator class.
 */
public abstract class ForwardingOperator<T, R> extends PaddedOperator implements Inlet<T>, Counted {

    protected final OperatorInfo info;
    protected final Inlet<? super R> next;

    protected ForwardingOperator(OperatorInfo info, Inlet<? super R> next) {
        this.info = info;
        this.next = next;
    }

    @Override
    public void onWatermark(long watermark) {
        next.onWatermark(watermark);
    }

    @Override
    public void onEndOfBatch() {
        next.onEndOfBatch();
    }

    @Override
    public void onComplete() {
        next.onComplete();
    }
}
