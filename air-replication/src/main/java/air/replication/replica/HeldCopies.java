package air.replication.replica;

import air.replication.replica.ReplicaService.Held;
import air.wire.FrameException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The copies one replica holds of other peers' snapshots, per sender, oldest first, each list
 * replaced whole and never changed in place (a takeover reads them from another thread): of those
 * committed, {@code history} (three with two or more replicas, so that blocks lost together find a
 * common checkpoint; one with a single replica), and up to {@link #MAX_UNCOMMITTED} newer ones. A
 * copy is committed once its sender committed that checkpoint or a later one here (everything it
 * sent before the barrier was delivered); a takeover resumes only from a committed copy. Changes
 * are added to the chain they follow, checked but not folded. Written by the replica channel's
 * reader only.
 */
final class HeldCopies {

    private static final Logger LOG = LoggerFactory.getLogger(HeldCopies.class);
    /** The most copies of one sender kept beyond its committed ones (a commit failed, or is on its way). */
    static final int MAX_UNCOMMITTED = 2;

    private final int self;
    private final int history;
    /** The most checkpoints of a chain held here (the sender's whole checkpoint and its changes) before SEND_WHOLE. */
    private final int maxChain;
    private final Map<Integer, List<Held>> held = new ConcurrentHashMap<>();
    /** Per sender, the newest of its checkpoints committed here. */
    private final Map<Integer, Long> committed = new ConcurrentHashMap<>();

    /** The copies peer {@code self} holds, {@code history} committed ones per sender, chains of at most {@code maxChain}. */
    HeldCopies(int self, int history, int maxChain) {
        this.self = self;
        this.history = history;
        this.maxChain = maxChain;
    }

    /** Whether a takeover may resume from {@code h}: its sender committed its checkpoint or a later one here. */
    private boolean isCommitted(Held h) {
        return h.id() <= committed.getOrDefault(h.from(), 0L);
    }

    /** The newest committed copy held here, of any peer, that covers {@code block}; null when none does. */
    Held newestCommittedCovering(int block) {
        Held best = null;
        for (List<Held> copies : held.values()) {
            for (Held h : copies) {
                if (h.covers(block) && isCommitted(h) && (best == null || h.id() > best.id())) {
                    best = h;
                }
            }
        }
        return best;
    }

    /** A committed copy held here, of any peer, of {@code block} at exactly checkpoint {@code id}; null when none is. */
    Held committedCopyAt(int block, long id) {
        for (List<Held> copies : held.values()) {
            for (Held h : copies) {
                if (h.id() == id && h.covers(block) && isCommitted(h)) {
                    return h;
                }
            }
        }
        return null;
    }

    /** The checkpoints of the copies held here that cover {@code block}, committed or not, ascending. */
    List<Long> idsCovering(int block) {
        List<Long> ids = new ArrayList<>();
        for (List<Held> copies : held.values()) {
            for (Held h : copies) {
                if (h.covers(block)) {
                    ids.add(h.id());
                }
            }
        }
        ids.sort(null);
        return ids;
    }

    /**
     * {@code from} committed its checkpoint {@code id}: its copies here up to it may be resumed from.
     * False when no copy of it is held here (the sender's commit then fails). The reader's thread only.
     */
    boolean commit(int from, long id) {
        List<Held> copies = held.get(from);
        if (copies == null || copies.stream().noneMatch(h -> h.id() == id)) {
            LOG.info("peer {}: peer {} commits checkpoint {}, of which no copy is held here", self, from, id);
            return false;
        }
        committed.merge(from, id, Math::max);
        held.computeIfPresent(from, (p, old) -> pruned(old, committed.get(p)));
        return true;
    }

    /** Keeps {@code copy} as its sender's newest, unless a copy as new is held already (the reader's thread only). */
    int keep(Held copy) {
        held.merge(copy.from(), List.of(copy), (old, now) -> {
            if (old.get(old.size() - 1).id() >= copy.id()) {
                return old;
            }
            List<Held> kept = new ArrayList<>(old);
            kept.add(copy);
            return pruned(kept, committed.getOrDefault(copy.from(), 0L));
        });
        return ReplicaService.HELD;
    }

    /**
     * Of one sender's copies, oldest first, those worth keeping: the newest {@link #history} committed
     * ones (at or before {@code committedId}) and the newest {@link #MAX_UNCOMMITTED} after them.
     */
    private List<Held> pruned(List<Held> copies, long committedId) {
        int safe = 0;
        for (Held h : copies) {
            if (h.id() <= committedId) {
                safe++;
            }
        }
        int dropSafe = Math.max(0, safe - history);
        int dropNewer = Math.max(0, copies.size() - safe - MAX_UNCOMMITTED);
        List<Held> kept = new ArrayList<>(copies.size());
        for (Held h : copies) {
            if (h.id() <= committedId ? dropSafe-- > 0 : dropNewer-- > 0) {
                continue;
            }
            kept.add(h);
        }
        return List.copyOf(kept);
    }

    /**
     * Checkpoint {@code id}'s changes from {@code from}, added to the chain of its copy of checkpoint
     * {@code id - 1} held here as a new copy (the changes checked, nothing folded); {@code SEND_WHOLE} when
     * the newest copy held here is older (a checkpoint missed, or none yet) or the chain would grow
     * past its bound. Changes that cannot be folded are garbage from the sender.
     */
    int chain(int from, long id, int[] blocks, Map<String, byte[]> changes) {
        List<Held> copies = held.get(from);
        Held newest = copies == null ? null : copies.get(copies.size() - 1);
        if (newest != null && newest.id() >= id) {
            return ReplicaService.HELD;
        }
        if (newest == null || newest.id() != id - 1) {
            LOG.info("peer {}: checkpoint {} of peer {} holds changes since checkpoint {}, but the newest copy of it here is {}: "
                    + "asking for a whole copy", self, id, from, id - 1, newest == null ? "none" : "of checkpoint " + newest.id());
            return ReplicaService.SEND_WHOLE;
        }
        List<Map<String, byte[]>> chain = newest.chain();
        long changesBytes = newest.changesBytes() + ReplicaService.bytesOf(changes);
        long wholeBytes = ReplicaService.bytesOf(chain.get(0));
        if (chain.size() >= maxChain || changesBytes > ReplicaService.chainBound(wholeBytes)) {
            LOG.info("peer {}: checkpoint {} of peer {} would make its chain here {} checkpoints of {} bytes of changes since its whole copy "
                    + "of {} bytes (checkpoint {}), more than {} checkpoints or {} bytes: asking for a whole copy", self, id, from,
                    chain.size() + 1, changesBytes, wholeBytes, newest.id() - chain.size() + 1, maxChain,
                    ReplicaService.chainBound(wholeBytes));
            return ReplicaService.SEND_WHOLE;
        }
        String mismatch;
        try {
            mismatch = Folding.check(chain.get(chain.size() - 1), id, changes);
        } catch (IllegalArgumentException e) {
            throw new FrameException(from, e.getMessage());
        }
        if (mismatch != null) {
            LOG.info("peer {}: checkpoint {} of peer {} does not follow the copy held here ({}): asking for a whole copy", self, id,
                    from, mismatch);
            return ReplicaService.SEND_WHOLE;
        }
        List<Map<String, byte[]>> longer = new ArrayList<>(chain.size() + 1);
        longer.addAll(chain);
        longer.add(Map.copyOf(changes));
        return keep(new Held(from, id, blocks, longer));
    }
}
