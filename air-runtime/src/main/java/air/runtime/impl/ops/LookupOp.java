package air.runtime.impl.ops;

import air.runtime.plan.OperatorInfo;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * {@code lookup} against a static table (a map's {@code get}): each record with its key's value, joined by the user's
 * function; an absent key drops the record ({@code inner}) or passes null. One map read per
 * record and nothing allocated beyond the user's result.
 */
public final class LookupOp<T, K, V, R> extends ForwardingOperator<T, R> {

    private final Function<? super K, ? extends V> valueOf;
    private final Function<? super T, ? extends K> keyFn;
    private final boolean inner;
    private final BiFunction<? super T, ? super V, ? extends R> joinFn;
    private final BadRecordHandler badRecords;
    private long received;
    @SuppressWarnings("unused")
    private long q00, q01, q02, q03, q04, q05, q06, q07; // after the hot longs: keeps the next object off their cache line

    public LookupOp(OperatorInfo info, Function<? super K, ? extends V> valueOf, Function<? super T, ? extends K> keyFn, boolean inner,
                    BiFunction<? super T, ? super V, ? extends R> joinFn, BadRecordHandler badRecords, Inlet<? super R> next) {
        super(info, next);
        this.badRecords = badRecords;
        this.valueOf = valueOf;
        this.keyFn = keyFn;
        this.inner = inner;
        this.joinFn = joinFn;
    }

    @Override
    public void accept(long timestamp, T item) {
        received++;
        R out;
        try {
            V value = valueOf.apply(keyFn.apply(item));
            if (value == null && inner) {
                return;
            }
            out = joinFn.apply(item, value);
        } catch (RuntimeException e) {
            badRecords.failed(timestamp, item, "threw on", e);
            return;
        }
        if (out == null) {
            badRecords.failed(timestamp, item, "returned null for", new NullPointerException("lookup join functions must not return null"));
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
