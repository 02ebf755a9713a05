package air.runtime.impl.inbound;

import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.RecordBatch;
import air.runtime.impl.shuffle.ShuffleItem;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.Arrays;

/**
 * Drops what an instance already has from a producer. Replication needs it: a producer replayed
 * from a snapshot, or one that sends its upstream-backup log again to a restored instance,
 * repeats items. Per producer, frames arrive in ascending frame order and credit in ascending
 * epoch order, and records of an exchange by their numbers, so anything at or below what was
 * already taken is a repeat (a record batch loses the prefix already taken; barriers are the aligner's: it knows each producer's last one). The
 * marks are part of the checkpoint.
 *
 * <p>The updates of a window emitting upserts (a frame's preview, or its records admitted late)
 * leave frame order by design: they pass, because each carries whole per-key accumulators with a
 * version and the window keeps the newest per (producer, frame, key), so a repeat changes nothing
 * however a replay cut it into batches; only a preview of a frame whose regular partial was taken
 * is dropped here.
 */
public final class RepeatFilter {

    private final long epochLength;
    /** Per producer: the newest frame taken, and the epoch below which its credit is all in. */
    private final long[] lastFrame;
    private final long[] creditFrontier;
    /** Per producer: the number of the next record of an exchange not yet taken. */
    private final long[] nextRecord;
    private long repeats;

    public RepeatFilter(int producers, long epochLength) {
        this.epochLength = epochLength;
        this.lastFrame = new long[producers];
        this.creditFrontier = new long[producers];
        this.nextRecord = new long[producers];
        Arrays.fill(lastFrame, Long.MIN_VALUE);
        Arrays.fill(creditFrontier, Long.MIN_VALUE);
    }

    /** The item, trimmed to what is new from its producer, or null when all of it was taken before. */
    public ShuffleItem fresh(ShuffleItem item) {
        int p = item.producer();
        switch (item) {
            case FrameAccumulators f when f.kind() != FrameAccumulators.REGULAR -> {
                // an update: idempotent at the window (newest version per key wins), so it needs no mark here; only a
                // preview of a frame whose regular partial was taken is stale (the regular one holds all it held)
                if (f.kind() == FrameAccumulators.PREVIEW && f.frameStart() <= lastFrame[p]) {
                    return repeat();
                }
            }
            case FrameAccumulators f -> {
                if (f.frameStart() <= lastFrame[p]) {
                    return repeat();
                }
                lastFrame[p] = f.frameStart();
            }
            case RecordBatch b -> {
                long end = b.firstIndex() + b.size();
                if (end <= nextRecord[p]) {
                    return repeat();
                }
                if (b.firstIndex() > nextRecord[p]) {
                    // only a replay from older state than this instance holds leaves a hole: records would be lost
                    throw new IllegalStateException("records " + nextRecord[p] + " .. " + (b.firstIndex() - 1) + " of producer " + p
                            + " never arrived (its replay starts at " + b.firstIndex() + "): two peers lost within one replication interval?");
                }
                ShuffleItem trimmed = b.firstIndex() < nextRecord[p] ? b.withoutFirst((int) (nextRecord[p] - b.firstIndex())) : b;
                nextRecord[p] = end;
                return trimmed;
            }
            case ShuffleItem.Credit c -> {
                if (c.epoch() < creditFrontier[p]) {
                    return repeat();
                }
                creditFrontier[p] = c.epoch() + epochLength;
            }
            case ShuffleItem.CreditRange r -> {
                if (r.to() <= creditFrontier[p]) {
                    return repeat();
                }
                ShuffleItem trimmed = r.from() < creditFrontier[p] ? new ShuffleItem.CreditRange(p, creditFrontier[p], r.to()) : r;
                creditFrontier[p] = r.to();
                return trimmed;
            }
            default -> { }
        }
        return item;
    }

    private ShuffleItem repeat() {
        repeats++;
        return null;
    }

    /** Items dropped as repeats so far (not checkpointed: a diagnostic of this run). */
    public long repeats() {
        return repeats;
    }

    public void snapshotTo(WireOut out) {
        out.putInt(lastFrame.length);
        for (int p = 0; p < lastFrame.length; p++) {
            out.putLong(lastFrame[p]).putLong(creditFrontier[p]).putLong(nextRecord[p]);
        }
    }

    public void restoreFrom(WireIn in) {
        int producers = in.getCount(24);
        if (producers != lastFrame.length) {
            throw in.malformed("checkpointed repeat marks for " + producers + " producers, this instance has " + lastFrame.length);
        }
        for (int p = 0; p < producers; p++) {
            lastFrame[p] = in.getLong();
            creditFrontier[p] = in.getLong();
            nextRecord[p] = in.getLong();
        }
    }
}
