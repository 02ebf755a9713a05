package air.runtime.impl.ops;

import air.runtime.plan.OperatorInfo;
import java.util.function.Function;

/** {@code map}: one output per input; null results are a user error. */
public final class MapOp<T, R> extends ForwardingOperator<T, R> {

    private final Function<? super T, ? extends R> fn;
    private long received;
    @SuppressWarnings("unused")
    private long q00, q01, q02, q03, q04, q05, q06, q07; // after the hot longs: keeps the next object off their cache line

    public MapOp(OperatorInfo info, Function<? super T, ? extends R> fn, Inlet<? super R> next) {
        super(info, next);
        this.fn = fn;
    }

    @Override
    public void accept(long timestamp, T item) {
        received++;
        R out;
        try {
            out = fn.apply(item);
        } catch (RuntimeException e) {
            throw new OperatorFailure(info, "threw on " + OperatorFailure.preview(item), e);
        }
        if (out == null) {
            throw new OperatorFailure(info, "returned null for " + OperatorFailure.preview(item),
                    new NullPointerException("map functions must not return null; use filter or flatMap to drop records"));
        }
        next.accept(timestamp, out);
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
