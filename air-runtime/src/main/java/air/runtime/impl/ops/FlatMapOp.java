package air.runtime.impl.ops;

import air.runtime.plan.OperatorInfo;
import java.util.function.Function;

/** {@code flatMap}: zero or more outputs per input, all with the input's timestamp. */
public final class FlatMapOp<T, R> extends ForwardingOperator<T, R> {

    private final Function<? super T, ? extends Iterable<? extends R>> fn;
    private long received;
    @SuppressWarnings("unused")
    private long q00, q01, q02, q03, q04, q05, q06, q07; // after the hot longs: keeps the next object off their cache line

    public FlatMapOp(OperatorInfo info, Function<? super T, ? extends Iterable<? extends R>> fn, Inlet<? super R> next) {
        super(info, next);
        this.fn = fn;
    }

    @Override
    public void accept(long timestamp, T item) {
        received++;
        Iterable<? extends R> outs;
        try {
            outs = fn.apply(item);
        } catch (RuntimeException e) {
            throw new OperatorFailure(info, "threw on " + OperatorFailure.preview(item), e);
        }
        if (outs == null) {
            return;
        }
        for (R out : outs) {
            if (out == null) {
                throw new OperatorFailure(info, "produced a null element for " + OperatorFailure.preview(item),
                        new NullPointerException("flatMap results must not contain null"));
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
