package air.runtime.impl.progress;

import air.runtime.api.WindowDefinition;
import air.runtime.impl.ops.ShuffleOutput;
import air.runtime.impl.routing.WindowRouter;
import air.runtime.plan.Progress;
import air.wire.WireIn;
import air.wire.WireOut;

/**
 * How a producer of windowed partials hands progress downstream: periodic low watermarks or
 * hew-meld credit. One object per producer, chosen from the plan's {@link Progress} when the job
 * is built; the partial operator calls it when its upstream watermark moves (per batch at most,
 * never per record) and learns which timestamps are late from then on.
 */
public interface ProgressRelease {

    /** What the releasing producer offers: its frames, shipped on request. */
    interface Frames {
        /** Ships every open frame starting before {@code boundary}, oldest first. */
        void shipBefore(long boundary);

        /** Ships the frame starting at {@code start}, if there is one. */
        void ship(long start);
    }

    static ProgressRelease of(Progress progress, WindowDefinition window, WindowRouter router, int producer, int producers) {
        return switch (progress) {
            case WATERMARK -> new WatermarkRelease(window);
            case HEWMELD -> new CreditRelease(window, router, producer, producers);
        };
    }

    /** A frame starting at {@code start} received its first record. */
    void onFrameOpened(long start);

    /**
     * The upstream watermark is now {@code watermark}: ships what that completes and tells the
     * destinations on {@code out}.
     *
     * @return the late threshold: records with a timestamp at or below it are late from now on
     */
    long advance(long watermark, Frames frames, ShuffleOutput out);

    void snapshotTo(WireOut out);

    void restoreFrom(WireIn in);
}
