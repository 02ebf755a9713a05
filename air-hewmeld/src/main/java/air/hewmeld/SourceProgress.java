package air.hewmeld;

import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * A source instance's side of hew-meld: which epochs it has had data for, and which it can release
 * now. An epoch {@code [e, e + length)} is released once no record of it can still come: the
 * newest timestamp seen minus the allowed disorder has passed its end, or at end of input. Epochs
 * with data are released as {@link Release.Point} (their credit follows their data); runs of epochs
 * without data as one {@link Release.Range}. Records of released epochs are late. Pure data.
 */
public final class SourceProgress {

    /** What the source hands over, in order. */
    public sealed interface Release {
        /** The source's share of one epoch it had data for. */
        record Point(long epoch) implements Release { }

        /** The source's share of every epoch in {@code [from, to)}; it had data for none of them. */
        record Range(long from, long to) implements Release { }
    }

    private final long epochLength;
    private final long maxDelay;
    private final TreeSet<Long> withData = new TreeSet<>();
    private long maxSeen = Long.MIN_VALUE;
    private long frontier = Long.MIN_VALUE;
    private long late;

    public SourceProgress(long epochLength, long maxDelay) {
        if (epochLength < 1) {
            throw new IllegalArgumentException("epochLength must be >= 1, was " + epochLength);
        }
        if (maxDelay < 0) {
            throw new IllegalArgumentException("maxDelay must be >= 0, was " + maxDelay);
        }
        this.epochLength = epochLength;
        this.maxDelay = maxDelay;
    }

    public long epochOf(long timestamp) {
        return Math.floorDiv(timestamp, epochLength) * epochLength;
    }

    /**
     * Registers a record.
     *
     * @return its epoch, or {@code Long.MIN_VALUE} when the epoch is already released (the record is late)
     */
    public long onRecord(long timestamp) {
        long epoch = epochOf(timestamp);
        if (epoch < frontier) {
            late++;
            return Long.MIN_VALUE;
        }
        withData.add(epoch);
        if (timestamp > maxSeen) {
            maxSeen = timestamp;
        }
        return epoch;
    }

    /** Releases every epoch that no record can reach any more. */
    public List<Release> advance() {
        if (maxSeen == Long.MIN_VALUE) {
            return List.of();
        }
        return advanceTo(maxSeen - maxDelay - 1);
    }

    /**
     * Registers that the epoch has data without a timestamp check: for callers that track lateness
     * and the newest timestamp themselves and register each epoch once.
     */
    public void noteEpoch(long epoch) {
        withData.add(epoch);
    }

    /** Releases every epoch that ends at or before {@code watermark + 1} (no record at or below it will come). */
    public List<Release> advanceTo(long watermark) {
        return watermark == Long.MAX_VALUE ? finish() : releaseBelow(epochOf(watermark + 1));
    }

    /** End of input (or an idle source giving up its claim): releases every epoch. */
    public List<Release> finish() {
        return releaseBelow(Long.MAX_VALUE);
    }

    private List<Release> releaseBelow(long newFrontier) {
        if (newFrontier <= frontier) {
            return List.of();
        }
        List<Release> out = new ArrayList<>();
        long next = frontier;
        while (!withData.isEmpty() && withData.first() < newFrontier) {
            long epoch = withData.pollFirst();
            if (epoch > next) {
                out.add(new Release.Range(next, epoch));
            }
            out.add(new Release.Point(epoch));
            next = epoch + epochLength;
        }
        if (newFrontier > next) {
            out.add(new Release.Range(next, newFrontier));
        }
        frontier = newFrontier;
        return out;
    }

    /** Epochs below this are released. */
    public long frontier() {
        return frontier;
    }

    public long lateRecords() {
        return late;
    }

    /** Writes the whole state, for a checkpoint. */
    public void snapshotTo(WireOut out) {
        out.putLong(maxSeen).putLong(frontier).putLong(late).putInt(withData.size());
        for (long epoch : withData) {
            out.putLong(epoch);
        }
    }

    /** Replaces the state with one written by {@link #snapshotTo}. */
    public void restoreFrom(WireIn in) {
        maxSeen = in.getLong();
        frontier = in.getLong();
        late = in.getLong();
        withData.clear();
        for (int i = in.getCount(8); i > 0; i--) {
            withData.add(in.getLong());
        }
    }
}
