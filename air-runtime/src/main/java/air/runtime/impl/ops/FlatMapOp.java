package air.runtime.impl.ops;

import air.runtime.plan.OperatorInfo;
import java.util.function.Function;

/** {@code flatMap}: zero or more outputs per input, all with the input's timestamp. */
public final class FlatMapOp<T, R> extends ForwardingOperator<T, R> {

    private final Function<? super T, ? extends Iterable<? extends R>> fn;
    private final BadRecordHandler badRecords;
    private long received;
    @SuppressWarnings("unused")
    private long q00, q01, q02, q03, q04, q05, q06, q07; // after the hot longs: keeps the next object off their cache line

    public FlatMapOp(OperatorInfo info, Function<? super T, ? extends Iterable<? extends R>> fn, BadRecordHandler badRecords,
                     Inlet<? super R> next) {
        super(info, next);
        this.fn = fn;
        this.badRecords = badRecords;
    }

    @Override
    public void accept(long timestamp, T item) {
        received++;
        Iterable<? extends R> outs;
        try {
            outs = fn.apply(item);
        } catch (RuntimeException e) {
            badRecords.failed(timestamp, item, "threw on", e);
            return;
        }
        if (outs == null) {
            return;
        }
        for (R out : outs) {
            if (out == null) { // the elements before it are already on their way
                badRecords.failed(timestamp, item, "produced a null element for", new NullPointerException("flatMap results must not contain null"));
                return;
            }
            next.accept(timestamp, out);
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
