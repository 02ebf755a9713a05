package air.runtime.impl.progress;

import air.runtime.api.WindowDefinition;
import air.runtime.impl.shuffle.ShuffleItem;
import air.runtime.impl.shuffle.ShuffleOutput;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.List;

/**
 * Low watermarks: when the watermark crosses a frame boundary, every frame before it is shipped
 * and one watermark (the boundary minus one) goes to every destination.
 */
final class WatermarkRelease implements ProgressRelease {

    private final WindowDefinition window;
    private long watermark = Long.MIN_VALUE;
    private long sentBoundary = Long.MIN_VALUE;

    WatermarkRelease(WindowDefinition window) {
        this.window = window;
    }

    @Override
    public void onFrameOpened(long start) {
    }

    @Override
    public long advance(long wm, Frames frames, ShuffleOutput out) {
        if (wm <= watermark) {
            return watermark;
        }
        watermark = wm;
        long boundary = wm == Long.MAX_VALUE ? Long.MAX_VALUE : window.frameStart(wm + 1);
        if (boundary > sentBoundary) {
            sentBoundary = boundary;
            frames.shipBefore(boundary);
            out.broadcast(new ShuffleItem.Watermark(out.producer(), boundary == Long.MAX_VALUE ? boundary : boundary - 1));
        }
        return watermark;
    }

    @Override
    public void snapshotTo(WireOut out) {
        out.putLong(watermark).putLong(sentBoundary);
    }

    @Override
    public void restoreFrom(WireIn in) {
        watermark = in.getLong();
        sentBoundary = in.getLong();
    }

    @Override
    public void restoreLowest(List<WireIn> states) {
        long lowestWatermark = Long.MAX_VALUE;
        long lowestBoundary = Long.MAX_VALUE;
        for (WireIn in : states) {
            lowestWatermark = Math.min(lowestWatermark, in.getLong());
            lowestBoundary = Math.min(lowestBoundary, in.getLong());
        }
        if (!states.isEmpty()) {
            watermark = lowestWatermark;
            sentBoundary = lowestBoundary;
        }
    }
}
