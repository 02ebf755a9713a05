package air.runtime.impl.exec;

import air.runtime.impl.checkpoint.CheckpointCoordinator;
import air.runtime.impl.checkpoint.PartSections;
import air.runtime.impl.checkpoint.SavedState;
import air.runtime.operator.Rescale;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.List;

/**
 * A tasklet's link to this peer's checkpoints: when the next barrier is due, which checkpoint
 * it restores from, its operators' saved states (found by operator id, {@link SavedState}), and
 * where its parts go. {@link #OFF} when the job takes no checkpoints.
 */
public final class Checkpointing {

    public static final Checkpointing OFF = new Checkpointing(null, 0, 0, null, () -> { });

    private final CheckpointCoordinator coordinator;
    private final long intervalNanos;
    private final long restoredId;
    private final SavedState saved;
    private final int instance;
    /** Resumed onto another layout: this tasklet's vertex's instances now; 0 when the layout is the one saved. */
    private final int rescaledTo;
    private final Runnable onRestored;
    /** A stop with a savepoint, when this job can take one; null otherwise. */
    private final SavepointStop savepoints;
    /** The checkpoint this tasklet last captured a part of (its thread only); -1: none since it started. */
    private long lastCaptured = -1;

    /** A tasklet restored from its own part {@code restoredPart} of the same plan (null: a fresh start), as a takeover does. */
    public Checkpointing(CheckpointCoordinator coordinator, long intervalNanos, long restoredId, byte[] restoredPart, Runnable onRestored) {
        this(coordinator, intervalNanos, restoredId, restoredPart == null ? null : SavedState.ofPart("(restored)", restoredPart), -1,
                onRestored);
    }

    /**
     * A tasklet of global instance {@code instance} in a run that resumes from {@code saved} (null:
     * a fresh start); {@code onRestored} runs once it is back at the checkpoint, with whatever of
     * its operators' state was saved.
     */
    public Checkpointing(CheckpointCoordinator coordinator, long intervalNanos, long restoredId, SavedState saved, int instance,
                         Runnable onRestored) {
        this(coordinator, intervalNanos, restoredId, saved, instance, 0, null, onRestored);
    }

    /**
     * The same, resuming onto another layout when {@code rescaledTo > 0}: the tasklet is instance
     * {@code instance} of {@code rescaledTo} of its vertex, and each operator restores its share
     * of what every instance of the saved layout left ({@link Rescale}).
     */
    Checkpointing(CheckpointCoordinator coordinator, long intervalNanos, long restoredId, SavedState saved, int instance,
                  int rescaledTo, SavepointStop savepoints, Runnable onRestored) {
        this.savepoints = savepoints;
        this.rescaledTo = rescaledTo;
        this.onRestored = onRestored;
        this.coordinator = coordinator;
        this.intervalNanos = intervalNanos;
        this.restoredId = restoredId;
        this.saved = saved;
        this.instance = instance;
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

    /**
     * The first checkpoint that holds tasklet {@code part}'s last state if it ends now: its last
     * state is captured under this id, so that a two-phase-commit sink's last output is committed
     * only by a checkpoint that holds its end ({@link CheckpointCoordinator#firstHolding}).
     */
    long firstHolding(String part) {
        return coordinator.firstHolding(part);
    }

    /** Whether this run resumes from a checkpoint (whatever of this tasklet's state it holds). */
    boolean resuming() {
        return saved != null;
    }

    /** Whether a stop with a savepoint was asked for: a source takes its next checkpoint now and then holds. */
    boolean stopRequested() {
        return savepoints != null && savepoints.requested();
    }

    /** A source sent the barrier of checkpoint {@code id} as its last before holding for a savepoint. */
    void heldAt(long id) {
        savepoints.heldAt(id);
    }

    /** Whether this run resumes onto another layout than the checkpoint's: operators restore with {@link #rescaled}. */
    boolean rescaling() {
        return saved != null && rescaledTo > 0;
    }

    /** Operator {@code id}'s share of the state every earlier instance saved, or null when none saved any. */
    Rescale rescaled(String id) {
        List<List<WireIn>> before = saved.allInstances(id);
        return before == null ? null : new Rescale(instance, rescaledTo, before, restoredId);
    }

    /** The saved state of this tasklet's operator {@code id}, or null when it starts empty. */
    WireIn restoredState(String id) {
        return saved == null ? null : saved.state(id, instance);
    }

    /** The saved states of operator {@code id}: its full state, then the changes after it; null when it starts empty. */
    List<WireIn> restoredStates(String id) {
        return saved == null ? null : saved.states(id, instance);
    }

    /**
     * Whether this tasklet's part of checkpoint {@code id} holds every operator's whole state
     * rather than what changed since its previous part: the peer's coordinator decides per
     * checkpoint (the first after a start, then every so many), and a tasklet whose previous part
     * was not of checkpoint {@code id - 1} (restored, or taken over) writes a whole one too.
     */
    boolean full(long id) {
        boolean decided = coordinator.full(id); // asked first, always: the peer's count of checkpoints goes on
        boolean full = decided || lastCaptured != id - 1;
        lastCaptured = id;
        return full;
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
        if (coordinator.underWay() < MAX_UNDER_WAY) {
            return false;
        }
        coordinator.reportIfSlow();
        return true;
    }

    /** Checkpoints being aligned or written on one peer before sources hold the next barrier back. */
    private static final int MAX_UNDER_WAY = 2;

    /** The tasklet is back at its restored state. */
    void restored() {
        if (saved != null) {
            onRestored.run();
        }
    }

    /** Offers this tasklet's part of checkpoint {@code id}, as captured. */
    void offer(long id, String part, PartSections sections) {
        offer(id, part, sections.done(), sections.anyChanges());
    }

    /** Offers this tasklet's part of checkpoint {@code id}; one the coordinator no longer takes makes the next part whole. */
    void offer(long id, String part, WireOut state, boolean changes) {
        if (!coordinator.offer(id, part, state.toBytes(), changes)) {
            lastCaptured = -1;
        }
    }

    void finished(String part, WireOut state) {
        coordinator.finished(part, state.toBytes());
    }
}
