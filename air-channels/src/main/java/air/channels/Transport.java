package air.channels;

import air.wire.FrameException;
import air.wire.WireOut;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.IntConsumer;

/**
 * How one peer talks to all others: frames on numbered channels, FIFO per (sender, channel).
 * The runtime sees only this; implementations keep their threads (MPJ calls happen on platform
 * threads of their own) and validate every frame they receive.
 */
public interface Transport extends AutoCloseable {

    /** This peer's rank, in {@code [0, peers())}. */
    int self();

    int peers();

    /** Sends a copy of {@code payload} to {@code peer} on {@code channel}; may block while the link is full. */
    void send(int peer, int channel, ByteBuffer payload);

    /**
     * Sends what {@code payload} holds, which from now on belongs to the transport: it must not be
     * written to again. Transports frame it in place where they can, saving the copy
     * {@link #send(int, int, ByteBuffer)} makes.
     */
    default void send(int peer, int channel, WireOut payload) {
        send(peer, channel, payload.sealForCopy());
    }

    /**
     * The next frame on {@code channel} from any peer, or null when none arrived within
     * {@code timeout}. Throws {@link FrameException} for a malformed frame, naming its sender, and
     * {@link IllegalStateException} once the transport is closed.
     */
    Frame receive(int channel, Duration timeout) throws InterruptedException;

    /**
     * Drops every frame queued here on {@code channel} that no receiver has taken, and releases the
     * senders waiting for room in that queue (their frame then goes in; a later {@code discard} or
     * receiver takes it). Only for a channel nobody receives from now: the runtime calls it on each
     * data channel of a job once the job's receivers have ended. Channels are numbered by a shuffle
     * edge's place in the plan, so the next job on a reused cluster reads the same ones; without
     * this, what an ended job's receivers left unread (a job that failed stops reading at once)
     * would wait there for the next job, and a peer sending into a full queue would wait for it
     * too, its own job unable to end. Transports without queues of their own ignore it.
     */
    default void discard(int channel) {
    }

    /**
     * Registers who hears of a broken link (a send that failed, a receiver that died), called on a
     * transport thread with the peer's rank. Transports that cannot break ignore it.
     */
    default void onLinkFailure(BiConsumer<Integer, Throwable> listener) {
    }

    /**
     * Registers who hears that a peer <em>left</em>: it closed its transport normally, after
     * everything it sent, and said so. That is no broken link — the link-failure listeners are not
     * told, not even of the end of its connections that follows — but sends to it fail from now on.
     * Called once per peer, on a transport thread. Transports that cannot tell a departure from a
     * failure ignore it (their peers' closes look like failures, as before).
     */
    default void onDeparture(IntConsumer listener) {
    }

    /**
     * Gives up on a peer another component found dead (heartbeats): sends to it fail from now on,
     * including those blocked waiting for room.
     */
    default void markLost(int peer, String why) {
    }

    /**
     * Completes once every frame sent to {@code peer} on a data channel ({@link Channels#data})
     * before this call is in {@code peer}'s memory: in its receive queues, where a crash of this
     * peer can no longer lose it. Fails when the link to {@code peer} breaks, it leaves or this
     * transport closes first. Replication needs it: a snapshot may count as replicated only once
     * what was sent before its barrier left the sender, since the sender's death would lose the
     * rest. Transports that cannot confirm delivery (MPJ Express, where one loss breaks every
     * link) return a future failed with {@link UnsupportedOperationException}.
     */
    default CompletableFuture<Void> delivered(int peer) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(getClass().getSimpleName()
                + " cannot confirm delivery to a peer"));
    }

    /**
     * Whether the loss of one peer leaves the links among the others working (TCP does; MPJ
     * niodev breaks every link). Replication needs it: survivors take over without a restart.
     */
    default boolean survivesPeerLoss() {
        return false;
    }

    /**
     * Releases the transport's resources; blocked receivers wake up with an error. Where the
     * transport can, the others hear that this peer left ({@link #onDeparture}), not that it failed.
     */
    @Override
    void close();
}
