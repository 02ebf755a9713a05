package air.runtime.impl.progress;

import air.runtime.api.WindowDefinition;
import air.runtime.impl.routing.WindowRouter;
import air.runtime.impl.shuffle.ShuffleOutput;
import air.runtime.plan.Progress;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.List;

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

    /**
     * Restore onto another layout: {@code states} are what the earlier producers' releases saved
     * ({@link #snapshotTo}); this producer resumes from the least progress among them, so that
     * nothing any of them had not yet released counts as released. Hew-meld credit is owed per
     * producer and epoch and cannot be split or merged: its release refuses (the default).
     *
     * @throws UnsupportedOperationException when this kind of progress cannot move to another layout
     */
    default void restoreLowest(List<WireIn> states) {
        throw new UnsupportedOperationException("hew-meld credit is owed per producer and cannot move to another number of producers; "
                + "rescale a job with watermark progress");
    }
}
