package air.runtime.impl.progress;

import air.hewmeld.watermark.LowWatermarkTracker;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.Arrays;
import java.util.stream.IntStream;

/**
 * Low watermarks: each input's watermark is the minimum over its producers, the operator's the
 * minimum over its inputs; everything at or below it is complete. Credit is a protocol error here.
 */
public final class WatermarkCompletion implements Completion {

    private final String operator;
    private final LowWatermarkTracker[] inputs;
    private final Listener listener;
    private long completeBelow = Long.MIN_VALUE;

    public WatermarkCompletion(String operator, int[] producersPerInput, Listener listener) {
        this.operator = operator;
        this.listener = listener;
        this.inputs = new LowWatermarkTracker[producersPerInput.length];
        for (int i = 0; i < inputs.length; i++) {
            inputs[i] = new LowWatermarkTracker(producersPerInput[i]);
        }
    }

    @Override
    public void onWatermark(int input, int producer, long watermark) {
        if (inputs[input].update(producer, watermark)) {
            advance();
        }
    }

    @Override
    public void onEndOfStream(int input, int producer) {
        if (inputs[input].markDone(producer)) {
            advance();
        }
    }

    private void advance() {
        long min = combined();
        if (min == Long.MIN_VALUE) {
            return;
        }
        long below = min == Long.MAX_VALUE ? Long.MAX_VALUE : min + 1;
        if (below > completeBelow) {
            completeBelow = below;
            listener.onProgress(below);
        }
    }

    private long combined() {
        long min = Long.MAX_VALUE;
        for (LowWatermarkTracker t : inputs) {
            min = Math.min(min, t.combined());
        }
        return min;
    }

    @Override
    public void onCredit(int input, int producer, long epoch, long amount) {
        throw unexpected("credit for epoch " + epoch, producer);
    }

    @Override
    public void onCreditRange(int input, int producer, long from, long to) {
        throw unexpected("a credit range [" + from + ", " + to + ")", producer);
    }

    private IllegalStateException unexpected(String what, int producer) {
        return new IllegalStateException(operator + ": " + what + " from producer " + producer
                + " under watermark progress: the producers run hew-meld (peers disagree on the progress mode?)");
    }

    @Override
    public long completeBelow() {
        return completeBelow;
    }

    @Override
    public long oldestIncomplete() {
        return Long.MAX_VALUE;
    }

    @Override
    public int[] holders(long epoch, int[] inputOffsets) {
        long min = combined();
        return IntStream.range(0, inputs.length)
                .filter(i -> inputs[i].combined() == min)
                .flatMap(i -> Arrays.stream(inputs[i].holdingBack()).map(p -> inputOffsets[i] + p))
                .toArray();
    }

    @Override
    public String incompleteAtEnd() {
        return null; // every producer's end of stream counts as the watermark +infinity
    }

    @Override
    public void snapshotTo(WireOut out) {
        out.putLong(completeBelow);
        for (LowWatermarkTracker t : inputs) {
            t.snapshotTo(out);
        }
    }

    @Override
    public void restoreFrom(WireIn in) {
        completeBelow = in.getLong();
        for (LowWatermarkTracker t : inputs) {
            t.restoreFrom(in);
        }
    }
}
