package air.runtime.impl.ops;

import air.runtime.plan.OperatorInfo;

/**
 * The split behind an operator whose bad records go to a dead-letter sink
 * ({@link air.runtime.plan.TailSpec.Fork#deadLetters}): records go on to {@code main} only, the
 * operator's {@link BadRecordHandler} sends its dead letters straight to {@code deadLetters}, and
 * progress, batch ends and the end of input go to both, so that the dead-letter sink sees progress
 * and closes with the rest.
 */
public final class DeadLetterFork<T> extends PaddedOperator implements Inlet<T>, Counted {

    private final OperatorInfo info;
    private final Inlet<? super T> main;
    private final Inlet<?> deadLetters;
    private long received;
    @SuppressWarnings("unused")
    private long q00, q01, q02, q03, q04, q05, q06, q07; // after the hot long: keeps the next object off its cache line

    public DeadLetterFork(OperatorInfo info, Inlet<? super T> main, Inlet<?> deadLetters) {
        this.info = info;
        this.main = main;
        this.deadLetters = deadLetters;
    }

    @Override
    public void accept(long timestamp, T item) {
        received++;
        main.accept(timestamp, item);
    }

    @Override
    public void emit(T item) {
        accept(NO_TIMESTAMP, item);
    }

    @Override
    public void onWatermark(long watermark) {
        main.onWatermark(watermark);
        deadLetters.onWatermark(watermark);
    }

    @Override
    public void onEndOfBatch() {
        main.onEndOfBatch();
        deadLetters.onEndOfBatch();
    }

    @Override
    public void onComplete() {
        main.onComplete();
        deadLetters.onComplete();
    }

    @Override
    public long received() {
        return received;
    }

    public OperatorInfo info() {
        return info;
    }
}
