package air.runtime.impl.ops;

import air.runtime.api.Timestamped;
import air.runtime.plan.OperatorInfo;

/** Wraps each record with its event time, ahead of a join that buffers records and needs their time later. */
public final class StampOp<T> extends ForwardingOperator<T, Timestamped<T>> {

    private long received;
    @SuppressWarnings("unused")
    private long q00, q01, q02, q03, q04, q05, q06, q07; // after the hot long: keeps the next object off its cache line

    public StampOp(OperatorInfo info, Inlet<? super Timestamped<T>> next) {
        super(info, next);
    }

    @Override
    public void accept(long timestamp, T item) {
        received++;
        next.accept(timestamp, new Timestamped<>(timestamp, item));
    }

    @Override
    public void emit(T item) {
        accept(NO_TIMESTAMP, item);
    }

    @Override
    public long received() {
        return received;
    }
}
