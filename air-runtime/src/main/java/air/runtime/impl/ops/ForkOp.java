package air.runtime.impl.ops;

import air.runtime.plan.OperatorInfo;

/**
 * A stage that feeds two: every record, watermark, batch end and end of input goes to
 * {@code first}, then to {@code second}. A fork into more branches nests forks, so each call site
 * here sees one downstream class and the JIT can inline both branches.
 */
public final class ForkOp<T> extends PaddedOperator implements Inlet<T>, Counted {

    private final OperatorInfo info;
    private final Inlet<? super T> first;
    private final Inlet<? super T> second;
    private long received;
    @SuppressWarnings("unused")
    private long q00, q01, q02, q03, q04, q05, q06, q07; // after the hot long: keeps the next object off its cache line

    public ForkOp(OperatorInfo info, Inlet<? super T> first, Inlet<? super T> second) {
        this.info = info;
        this.first = first;
        this.second = second;
    }

    @Override
    public void accept(long timestamp, T item) {
        received++;
        first.accept(timestamp, item);
        second.accept(timestamp, item);
    }

    @Override
    public void emit(T item) {
        accept(NO_TIMESTAMP, item);
    }

    @Override
    public void onWatermark(long watermark) {
        first.onWatermark(watermark);
        second.onWatermark(watermark);
    }

    @Override
    public void onEndOfBatch() {
        first.onEndOfBatch();
        second.onEndOfBatch();
    }

    @Override
    public void onComplete() {
        first.onComplete();
        second.onComplete();
    }

    @Override
    public long received() {
        return received;
    }

    public OperatorInfo info() {
        return info;
    }
}
