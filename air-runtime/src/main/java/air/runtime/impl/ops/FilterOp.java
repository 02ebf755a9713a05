package air.runtime.impl.ops;

import air.runtime.plan.OperatorInfo;
import java.util.function.Predicate;

/** {@code filter}: forwards the records the predicate accepts. */
public final class FilterOp<T> extends ForwardingOperator<T, T> {

    private final Predicate<? super T> predicate;
    private final BadRecordHandler badRecords;
    private long received;
    @SuppressWarnings("unused")
    private long q00, q01, q02, q03, q04, q05, q06, q07; // after the hot longs: keeps the next object off their cache line

    public FilterOp(OperatorInfo info, Predicate<? super T> predicate, BadRecordHandler badRecords, Inlet<? super T> next) {
        super(info, next);
        this.predicate = predicate;
        this.badRecords = badRecords;
    }

    @Override
    public void accept(long timestamp, T item) {
        received++;
        boolean pass;
        try {
            pass = predicate.test(item);
        } catch (RuntimeException e) {
            badRecords.failed(timestamp, item, "threw on", e);
            return;
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
    public long received() {
        return received;
    }
}
