package air.runtime.impl.progress;

import air.hewmeld.Credit;
import air.hewmeld.SourceProgress;
import air.runtime.api.WindowDefinition;
import air.runtime.impl.routing.WindowRouter;
import air.runtime.impl.shuffle.ShuffleItem;
import air.runtime.impl.shuffle.ShuffleOutput;
import air.wire.WireIn;
import air.wire.WireOut;

/**
 * Hew-meld: releases the epochs no record can reach any more. Each epoch with data is shipped
 * with this producer's share of its credit right behind it (where the router sends the epoch's
 * partials); each run of empty epochs goes to everyone as one range.
 */
final class CreditRelease implements ProgressRelease {

    private final SourceProgress credit;
    private final WindowRouter router;
    private final long share;
    private long watermark = Long.MIN_VALUE;

    CreditRelease(WindowDefinition window, WindowRouter router, int producer, int producers) {
        this.credit = new SourceProgress(window.slide(), 0);
        this.router = router;
        this.share = Credit.shareOf(producer, producers);
    }

    @Override
    public void onFrameOpened(long start) {
        credit.noteEpoch(start);
    }

    @Override
    public long advance(long wm, Frames frames, ShuffleOutput out) {
        if (wm <= watermark) {
            return watermark;
        }
        for (SourceProgress.Release release : credit.advanceTo(wm)) {
            switch (release) {
                case SourceProgress.Release.Range range ->
                        out.broadcast(new ShuffleItem.CreditRange(out.producer(), range.from(), range.to()));
                case SourceProgress.Release.Point point -> {
                    frames.ship(point.epoch());
                    router.sendCredit(new ShuffleItem.Credit(out.producer(), point.epoch(), share), out);
                }
            }
        }
        long frontier = credit.frontier();
        watermark = frontier == Long.MIN_VALUE ? Long.MIN_VALUE : frontier - 1;
        return watermark;
    }

    @Override
    public void snapshotTo(WireOut out) {
        out.putLong(watermark);
        credit.snapshotTo(out);
    }

    @Override
    public void restoreFrom(WireIn in) {
        watermark = in.getLong();
        credit.restoreFrom(in);
    }
}
