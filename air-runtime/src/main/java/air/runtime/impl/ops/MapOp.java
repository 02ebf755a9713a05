package air.runtime.impl.ops;

import air.runtime.plan.OperatorInfo;
import java.util.function.Function;

/** {@code map}: one output per input; null results are a user error, handled as a throw by the stage's bad-record policy. */
public final class MapOp<T, R> extends ForwardingOperator<T, R> {

    private final Function<? super T, ? extends R> fn;
    private final BadRecordHandler badRecords;
    private long received;
    @SuppressWarnings("unused")
    private long q00, q01, q02, q03, q04, q05, q06, q07; // after the hot longs: keeps the next object off their cache line

    public MapOp(OperatorInfo info, Function<? super T, ? extends R> fn, BadRecordHandler badRecords, Inlet<? super R> next) {
        super(info, next);
        this.fn = fn;
        this.badRecords = badRecords;
    }

    @Override
    public void accept(long timestamp, T item) {
        received++;
        R out;
        try {
            out = fn.apply(item);
        } catch (RuntimeException e) {
            badRecords.failed(timestamp, item, "threw on", e);
            return;
        }
        if (out == null) {
            badRecords.failed(timestamp, item, "returned null for",
                    new NullPointerException("map functions must not return null; use filter or flatMap to drop records"));
            return;
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
