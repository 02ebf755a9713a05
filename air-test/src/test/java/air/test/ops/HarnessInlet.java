package air.test.ops;

import air.runtime.impl.ops.Inlet;
import air.test.HarnessOutput;

/** The engine's operator output ({@link Inlet}) over the harness's: items and their times go to the harness. */
final class HarnessInlet implements Inlet<Object> {

    private final HarnessOutput out;

    HarnessInlet(HarnessOutput out) {
        this.out = out;
    }

    @Override
    public void accept(long timestamp, Object item) {
        out.emit(timestamp, item);
    }

    @Override
    public void emit(Object item) {
        out.emit(item);
    }

    @Override
    public void onWatermark(long watermark) {
    }

    @Override
    public void onEndOfBatch() {
    }

    @Override
    public void onComplete() {
    }
}
