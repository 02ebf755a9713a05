package air.hewmeld.watermark;

import air.wire.WireIn;
import air.wire.WireOut;
import java.util.Arrays;
import java.util.stream.IntStream;

/**
 * The conventional low watermark over a fixed set of input channels: the operator's watermark is
 * the minimum of the last watermark seen on each channel. Pure data: no threads, no I/O.
 *
 * <p>Invariants: a channel's watermark never goes back (an older value is ignored); the combined
 * watermark never goes back; a channel marked done counts as {@code Long.MAX_VALUE}.
 */
public final class LowWatermarkTracker {

    private final long[] channelWatermarks;
    private long combined = Long.MIN_VALUE;

    public LowWatermarkTracker(int channels) {
        if (channels < 1) {
            throw new IllegalArgumentException("channels must be >= 1, was " + channels);
        }
        channelWatermarks = new long[channels];
        Arrays.fill(channelWatermarks, Long.MIN_VALUE);
    }

    /**
     * Records a watermark from one channel.
     *
     * @return true when the combined watermark advanced
     */
    public boolean update(int channel, long watermark) {
        if (watermark <= channelWatermarks[channel]) {
            return false;
        }
        long previous = channelWatermarks[channel];
        channelWatermarks[channel] = watermark;
        if (previous != combined) {
            return false;
        }
        long min = Long.MAX_VALUE;
        for (long w : channelWatermarks) {
            min = Math.min(min, w);
        }
        if (min > combined) {
            combined = min;
            return true;
        }
        return false;
    }

    public boolean markDone(int channel) {
        return update(channel, Long.MAX_VALUE);
    }

    public long combined() {
        return combined;
    }

    public boolean allDone() {
        return combined == Long.MAX_VALUE;
    }

    /** The channels whose watermark equals the combined one: those holding it back. */
    public int[] holdingBack() {
        return IntStream.range(0, channelWatermarks.length)
                .filter(i -> channelWatermarks[i] == combined && combined != Long.MAX_VALUE).toArray();
    }

    public int channels() {
        return channelWatermarks.length;
    }

    /** Writes the whole state, for a checkpoint. */
    public void snapshotTo(WireOut out) {
        out.putLong(combined).putInt(channelWatermarks.length);
        for (long w : channelWatermarks) {
            out.putLong(w);
        }
    }

    /** Replaces the state with one written by {@link #snapshotTo} for as many channels. */
    public void restoreFrom(WireIn in) {
        combined = in.getLong();
        int n = in.getCount(8);
        if (n != channelWatermarks.length) {
            throw in.malformed("watermark state for " + n + " channels, this tracker has " + channelWatermarks.length);
        }
        for (int i = 0; i < n; i++) {
            channelWatermarks[i] = in.getLong();
        }
    }
}
