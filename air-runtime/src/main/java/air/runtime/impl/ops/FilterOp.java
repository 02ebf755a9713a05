package air.runtime.impl.ops;

import air.runtime.plan.OperatorInfo;
import java.util.function.Predicate;

/** {@code filter}: forwards the records the predicate accepts. */
public final class FilterOp<T> extends PaddedOperator implements Inlet<T>, Counted {

    private final OperatorInfo info;
    private final Predicate<? super T> predicate;
    private final Inlet<? super T> next;
    private long received;
    @SuppressWarnings("unused")
    private long q00, q01, q02, q03, q04, q05, q06, q07; // after the hot longs: keeps the next object off their cache line

    public FilterOp(OperatorInfo info, Predicate<? super T> predicate, Inlet<? super T> next) {
        this.info = info;
        this.predicate = predicate;
        this.next = next;
    }

    @Override
    public void accept(long timestamp, T item) {
        received++;
        boolean pass;
        try {
            pass = predicate.test(item);
        } catch (RuntimeException e) {
            throw new OperatorFailure(info, "threw on " + OperatorFailure.preview(item), e);
        }
        if (pass) {
            next.accept(timestamp, item);
        }
    }

    @Override
    public void emit(T item) {
        accept(NO_TIMESTAMP, item);
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

    @Override
    public long received() {
        return received;
    }
}
