package air.runtime.impl.shuffle;

import air.wire.WireIn;
import air.wire.WireOut;

/**
 * A shuffle edge's data channel as one cluster job uses it: every frame on it is the job's number
 * ({@link ClusterSession#beginJob}, the same on every peer), then the item in
 * {@link ShuffleItemCodec}'s form.
 *
 * <p>Why the number: channels are numbered by the edge's place in the plan ({@code Channels.data}),
 * so every job's first edge is the same channel, and the peers of a reused {@code Cluster} keep
 * their transports from one job to the next. What a job sent and nobody read (it failed, and its
 * receivers stopped at once) can still be queued or in flight when the next job starts; with the
 * same plan it would pass every other check there (a stale end of stream would even end a receiver
 * early). The receiver drops a frame of another job ({@link #senderJob}); the end of a job empties the
 * queues ({@link Transport#discard}), so that nothing waits on them meanwhile. The number is in this
 * envelope, not in the item's form, which checkpoint streams embed and which knows no cluster job.
 *
 * @param channel the edge's channel
 * @param job     the cluster job's number
 */
public record DataChannel(int channel, long job) {

    /** What the envelope adds in front of the item. */
    private static final int ENVELOPE_BYTES = Long.BYTES;

    /** The frame's payload for {@code item}, for final instance {@code destination}, in this job's envelope. */
    public WireOut encode(int destination, ShuffleItem item, ShuffleItemCodec codec) {
        WireOut out = new WireOut(ENVELOPE_BYTES + ShuffleItemCodec.sizeHint(item));
        out.putLong(job);
        codec.write(destination, item, out);
        return out;
    }

    /** Reads a received frame's envelope, leaving {@code in} at the item: the number of the job that sent it. */
    public static long senderJob(WireIn in) {
        return in.getLong();
    }
}
