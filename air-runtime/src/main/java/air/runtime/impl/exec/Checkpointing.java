package air.runtime.impl.exec;

import air.runtime.impl.checkpoint.CheckpointCoordinator;
import air.wire.WireIn;
import air.wire.WireOut;
import java.nio.ByteBuffer;

/**
 * A tasklet's link to this peer's checkpoints: when the next barrier is due, which checkpoint
 * it restores from, and where its parts go. {@link #OFF} when the job takes no checkpoints.
 */
final class Checkpointing {

    static final Checkpointing OFF = new Checkpointing(null, 0, 0, null, () -> { }, false);

    private final CheckpointCoordinator coordinator;
    private final long intervalNanos;
    private final long restoredId;
    private final byte[] restoredPart;
    private final Runnable onRestored;
    private final boolean catchUp;

    Checkpointing(CheckpointCoordinator coordinator, long intervalNanos, long restoredId, byte[] restoredPart, Runnable onRestored) {
        this(coordinator, intervalNanos, restoredId, restoredPart, onRestored, false);
    }

    /**
     * @param catchUp a tasklet taken over from a dead peer: restored from an older checkpoint than
     *                this peer has reached, its source sends the missing barriers at once
     */
    Checkpointing(CheckpointCoordinator coordinator, long intervalNanos, long restoredId, byte[] restoredPart, Runnable onRestored,
                  boolean catchUp) {
        this.catchUp = catchUp;
        this.onRestored = onRestored;
        this.coordinator = coordinator;
        this.intervalNanos = intervalNanos;
        this.restoredId = restoredId;
        this.restoredPart = restoredPart;
    }

    boolean enabled() {
        return coordinator != null;
    }

    long intervalNanos() {
        return intervalNanos;
    }

    /** The checkpoint this run resumes from, 0 on a fresh start. */
    long restoredId() {
        return restoredId;
    }

    /** This tasklet's part of the restored checkpoint, or null on a fresh start. */
    WireIn restoredPart(String part) {
        return restoredPart == null ? null : new WireIn(ByteBuffer.wrap(restoredPart), -1);
    }

    /** For a taken-over source: the checkpoint number its barriers must reach without waiting (0: none). */
    long catchUpTarget() {
        return catchUp ? coordinator.newestOffered() : 0;
    }

    /**
     * Whether another tasklet of this peer has already offered a part of checkpoint {@code id}: a
     * source that is behind must then take it at once, even when checkpoints are backlogged, or the
     * backlog never drains (measured: a lagging source postponed the very checkpoint that held the
     * backlog, and the job waited forever).
     */
    boolean begun(long id) {
        return coordinator.newestOffered() >= id;
    }

    /** Whether this peer has so many checkpoints under way that a source should wait before starting another. */
    boolean backlogged() {
        return coordinator.underWay() >= MAX_UNDER_WAY;
    }

    /** Checkpoints being aligned or written on one peer before sources hold the next barrier back. */
    private static final int MAX_UNDER_WAY = 2;

    /** The tasklet is back at its restored state. */
    void restored() {
        if (restoredPart != null) {
            onRestored.run();
        }
    }

    void offer(long id, String part, WireOut state) {
        coordinator.offer(id, part, bytesOf(state));
    }

    void finished(String part, WireOut state) {
        coordinator.finished(part, bytesOf(state));
    }

    private static byte[] bytesOf(WireOut out) {
        ByteBuffer b = out.buffer();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        return bytes;
    }
}
