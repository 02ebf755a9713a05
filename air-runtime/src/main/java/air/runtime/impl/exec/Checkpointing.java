package air.runtime.impl.exec;

import air.runtime.impl.checkpoint.CheckpointCoordinator;
import air.wire.WireIn;
import air.wire.WireOut;
import java.nio.ByteBuffer;

/**
 * A tasklet's link to this peer's checkpoints: when the next barrier is due, which checkpoint
 * it restores from, and where its parts go. {@link #OFF} when the job takes no checkpoints.
 */
public final class Checkpointing {

    public static final Checkpointing OFF = new Checkpointing(null, 0, 0, null, () -> { });

    private final CheckpointCoordinator coordinator;
    private final long intervalNanos;
    private final long restoredId;
    private final byte[] restoredPart;
    private final Runnable onRestored;

    public Checkpointing(CheckpointCoordinator coordinator, long intervalNanos, long restoredId, byte[] restoredPart, Runnable onRestored) {
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

    /**
     * Whether another tasklet of this peer has already offered a part of checkpoint {@code id}. Such
     * a checkpoint is due at once, whatever the source's timer or the backlog says: it stays under
     * way until every tasklet's part is in. This is how a source taken over from a dead peer
     * (restored from an older checkpoint) sends the barriers it missed, and why a lagging source
     * never postpones the very checkpoints that hold the backlog (measured: the job then waited
     * forever).
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
