package air.replication.replica;

import air.channels.Channels;
import air.channels.Frame;
import air.channels.FrameCodec;
import air.runtime.JobEvent;
import air.runtime.api.CheckpointStore;
import air.runtime.impl.checkpoint.PartNames;
import air.runtime.impl.cluster.ClusterSession;
import air.runtime.impl.cluster.MembershipView;
import air.runtime.impl.event.JobEvents;
import air.wire.FrameException;
import air.wire.WireIn;
import air.wire.WireOut;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One peer's side of replication for one job, and the only reader of the replica channel. As a
 * {@link CheckpointStore} it sends each snapshot of this peer to its next {@code k} live peers and
 * waits until all of them acknowledged it (choosing the next live ones when a target dies
 * meanwhile); then it commits the snapshot and tells every peer which blocks it covers: producers
 * may drop what they logged for those blocks before it. It keeps the newest copies each other peer
 * sent here, for a takeover, and passes takeover announcements on.
 *
 * <p><b>Commit.</b> A copy its replicas hold is not yet one a takeover may resume from: the
 * takeover resumes the peer's producers after the snapshot's barrier, so whatever the peer sent
 * before that barrier and had not yet delivered (records and the barrier itself still in its data
 * lane's queue or socket when it dies) would be lost. So once its targets hold the copy, the sender
 * waits for {@link Delivery} (everything its producers sent before the barrier is in the other
 * peers' memory), then sends COMMIT to its targets and waits for their answers, and only then
 * tells everyone REPLICATED and returns (the checkpoint is complete: its two-phase-commit sinks
 * commit). A replica resumes a takeover only from a committed copy ({@link #newestCommittedCovering});
 * it learns of the commit before any producer can trim its log past it, because REPLICATED goes out
 * only after the targets answered COMMIT. A replica keeps its sender's newest committed copies (one,
 * or three with two or more replicas) and at most two newer ones not yet committed.
 *
 * <p>Incremental copies ({@link #keepsChains}): a checkpoint that holds only changes since the one
 * before goes as those changes to every target, each of which must hold the checkpoint before from
 * this peer. A replica keeps per sender the chain as it arrived, no copy folded: the parts of the
 * newest whole checkpoint and those of each checkpoint of changes after it (checked, not folded,
 * {@link Folding#check}), so that a checkpoint of changes costs in proportion to the changes on
 * both sides; a whole copy starts a new chain, and a copy is folded only when a takeover reads it
 * ({@link Held#part}). Changes that do not follow the newest copy held here (a checkpoint missed,
 * none yet), or that would grow its chain past {@code maxChain} checkpoints or past twice the
 * bytes of its whole copy (and {@link #CHAIN_BYTES_FLOOR}), are answered SEND_WHOLE. The sender keeps no
 * copy of its own: a target that lacks the checkpoint before (one that answers SEND_WHOLE, or a
 * new target after a membership change that never acknowledged the checkpoint before) fails that
 * checkpoint's write with an {@link IOException} saying so, and the coordinator makes its next
 * checkpoint whole. A chain is at most {@code fullCheckpointEvery} checkpoints: the coordinator
 * writes a whole one at least that often.
 *
 * <p>Messages: PUT (a peer's snapshot: WHOLE, which starts a new chain of that peer here, or
 * CHANGES since the checkpoint before, added to the chain held), ACK (with a status: HELD, or
 * SEND_WHOLE when the changes do not apply to the chain held here, or when a COMMIT names a copy not
 * held here; the sender's write of that checkpoint then fails, and its next is whole; COMMITTED in
 * answer to a COMMIT), COMMIT (the copy of a checkpoint held here may be resumed from), CUTS (what a
 * member knows replicated of the blocks a view moved together, {@link CutAgreement}),
 * REPLICATED (blocks covered by a peer's committed snapshot),
 * TAKEOVER (blocks moved to a new host). Each names the job's sequence number and the sender's
 * membership view number; another job's are ignored, and so is anything from a peer the installed
 * view no longer holds (a fenced peer's snapshots and takeovers never count). Garbage (also changes
 * that cannot be folded) fails the job naming the sender.
 *
 * <p>Chunks: a PUT is chunk {@code index} of {@code count} of its copy, whose body (blocks, then
 * parts) is cut into chunks of at most {@link Chunks#DEFAULT_BYTES} data bytes, so that a snapshot
 * larger than a frame travels; most copies are one chunk. A replica gathers one copy per sender at
 * a time and holds it, and acknowledges it, only once its last chunk is in: a chunk 0 drops the copy
 * that sender left unfinished, a chunk of no copy in progress (one dropped so) is ignored, a chunk
 * out of order drops the copy in progress unacknowledged, and a chunk header that contradicts itself
 * or the copy in progress is garbage. A sender's copy in progress is dropped when it leaves the view.
 * Acknowledgements go from a thread of their own, so that the reader never waits on a full link and
 * always drains the chunks that other peers' writers wait to send.
 */
public final class ReplicaService implements CheckpointStore, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicaService.class);
    /** Message kinds (package-private for tests that play a peer by hand). */
    static final int PUT = 1, ACK = 2, REPLICATED = 3, TAKEOVER = 4, COMMIT = 5, CUTS = 6;
    /** What a PUT holds: a whole snapshot, or the changes since the checkpoint before. */
    static final int WHOLE = 0, CHANGES = 1;
    /**
     * An ACK's status: the snapshot is held here; its changes did not apply to the chain held here (or
     * the copy a COMMIT names is not held here); the copy a COMMIT names is committed here.
     */
    static final int HELD = 0, SEND_WHOLE = 1, COMMITTED = 2;
    static final long ACK_TIMEOUT_MS = 60_000;
    /**
     * The changes of a chain may outweigh its whole copy up to this many bytes before a replica asks
     * for a whole copy: a small state's changes weigh about as much as the state, and a whole copy
     * every other checkpoint would cost more than the chain.
     */
    static final long CHAIN_BYTES_FLOOR = 1L << 20;
    /** The copies this peer's targets hold, as the writer thread sent them; read by tasklets deciding a checkpoint ({@link #prefersWhole}). */
    private volatile long sentWholeBytes;
    private volatile long sentChangesBytes;
    private volatile long lastChangesBytes;

    /**
     * A peer's snapshot held here: who sent it, its checkpoint number, the blocks it covers, and its
     * chain as it arrived, oldest first: the parts of a whole checkpoint, {@code id - chain.size() + 1},
     * then those of each checkpoint of changes up to {@code id}; only complete chains are held.
     */
    public record Held(int from, long id, int[] blocks, List<Map<String, byte[]>> chain) {

        public Held {
            chain = List.copyOf(chain);
        }

        boolean covers(int block) {
            return Arrays.stream(blocks).anyMatch(b -> b == block);
        }

        /** Tasklet {@code name}'s part of checkpoint {@link #id}, folded over the chain ({@link Folding#part}); null when it has none. */
        public byte[] part(String name) {
            return Folding.part(chain, name);
        }

        /** Every part of checkpoint {@link #id}, each folded over the chain. */
        public Map<String, byte[]> parts() {
            return Folding.parts(chain);
        }

        /** The bytes of the changes of the chain (all but its whole copy). */
        long changesBytes() {
            long bytes = 0;
            for (int i = 1; i < chain.size(); i++) {
                bytes += bytesOf(chain.get(i));
            }
            return bytes;
        }
    }

    static long bytesOf(Map<String, byte[]> parts) {
        long bytes = 0;
        for (byte[] part : parts.values()) {
            bytes += part.length;
        }
        return bytes;
    }

    /** Hears that blocks moved to a new host under a view. */
    public interface TakeoverListener {
        void movedTo(int host, long epoch, int[] blocks);
    }

    /**
     * What a snapshot's commit waits for besides its replicas: that everything this peer sent before
     * the snapshot's barrier is in the other live peers' memory ({@link BarrierDelivery}).
     */
    public interface Delivery {

        /** Returns once what was sent before checkpoint {@code id}'s barrier was delivered; an {@link IOException} fails the checkpoint. */
        void await(long id, long deadlineMillis) throws IOException, InterruptedException;
    }

    private final ClusterSession session;
    private final long job;
    private final int replicas;
    private final int workers;
    private final Consumer<Throwable> onFailure;
    private volatile TakeoverListener takeovers = (h, e, b) -> { };
    /** The other peers' snapshots held here, for a takeover. */
    private final HeldCopies held;
    /** The checkpoint blocks moved together resume from, agreed by every member. */
    private final CutAgreement agreement = new CutAgreement();
    private final Delivery delivery;
    private final long[] replicatedCut;
    /** Per block, the replicated checkpoint before the newest: with two or more replicas producers keep their logs from here. */
    private final long[] previousCut;
    private final Map<Long, Set<Integer>> acks = new HashMap<>();
    /** Per checkpoint being replicated, the targets that answered SEND_WHOLE: they lack its base, and its write fails. */
    private final Map<Long, Set<Integer>> wholeWanted = new HashMap<>();
    /** Per checkpoint being committed, the targets that answered its COMMIT. */
    private final Map<Long, Set<Integer>> commitAcks = new HashMap<>();
    /** Per target, the newest checkpoint of this peer it acknowledged holding: it may get the changes of the next one. */
    private final Map<Integer, Long> heldBy = new ConcurrentHashMap<>();
    private final long ackTimeoutMs;
    /**
     * Guards {@link #acks}, {@link #wholeWanted} and {@link #commitAcks}: a lock, not a monitor, so that a virtual thread
     * waiting for acknowledgements never pins its carrier.
     */
    private final ReentrantLock acksLock = new ReentrantLock();
    private final Condition ackArrived = acksLock.newCondition();
    private final Thread reader;
    /** Sends the reader's acknowledgements, in order, so that the reader never blocks on a link. */
    private final ExecutorService acker;
    /** Data bytes per chunk of a PUT. */
    private final int chunkBytes;
    /** Per sender, its copy whose chunks are still arriving (the reader's thread only): at most one each. */
    private final Map<Integer, Partial> partials = new HashMap<>();
    private volatile boolean closed;
    private volatile boolean warnedAlone;
    /** What the last replicated snapshot covered and where it went: a change is logged (launchers wait for it). */
    private String lastCovered = "";
    private volatile JobEvents events = JobEvents.NONE;
    private volatile String jobName = "";

    /** A copy from one sender whose chunks are still arriving: checkpoint, mode, chunk count, the data of those in so far. */
    private record Partial(long id, int mode, int count, List<ByteBuffer> data) {

        int next() {
            return data.size();
        }
    }

    /**
     * {@code maxChain}: the most checkpoints of a chain held here, a whole one and the changes after
     * it (the job's {@code fullCheckpointEvery}: its peers write a whole checkpoint at least that often);
     * {@code delivery}: what a snapshot's commit waits for besides its replicas.
     */
    public ReplicaService(ClusterSession session, long job, int replicas, int workers, int maxChain, Delivery delivery,
                          Consumer<Throwable> onFailure) {
        this(session, job, replicas, workers, maxChain, delivery, onFailure, ACK_TIMEOUT_MS, Chunks.DEFAULT_BYTES);
    }

    /**
     * {@code ackTimeoutMs}: how long a snapshot waits for its targets' acknowledgements before its
     * checkpoint fails; {@code chunkBytes}: the most data bytes one PUT carries (tests cut copies
     * into many small chunks).
     */
    ReplicaService(ClusterSession session, long job, int replicas, int workers, int maxChain, Delivery delivery,
                   Consumer<Throwable> onFailure, long ackTimeoutMs, int chunkBytes) {
        if (chunkBytes < 1 || chunkBytes > Chunks.MAX_BYTES) {
            throw new IllegalArgumentException("chunkBytes must be in [1, " + Chunks.MAX_BYTES + "] (a frame carries at most "
                    + FrameCodec.DEFAULT_MAX_PAYLOAD + " bytes), was " + chunkBytes);
        }
        if (maxChain < 1) {
            throw new IllegalArgumentException("maxChain must be >= 1, was " + maxChain);
        }
        this.delivery = delivery;
        this.chunkBytes = chunkBytes;
        this.ackTimeoutMs = ackTimeoutMs;
        this.session = session;
        this.job = job;
        this.replicas = replicas;
        this.workers = workers;
        this.onFailure = onFailure;
        this.replicatedCut = new long[session.peers()];
        this.previousCut = new long[session.peers()];
        this.held = new HeldCopies(session.self(), replicas >= 2 ? 3 : 1, maxChain);
        this.acker = Executors.newSingleThreadExecutor(Thread.ofPlatform().daemon().name("air-replica-ack-" + session.self()).factory());
        this.reader = Thread.ofPlatform().daemon().name("air-replica-" + session.self()).start(this::readLoop);
    }

    /** Where {@link air.runtime.JobEvent.StateReplicated} goes (for job {@code name}); set before any tasklet runs. */
    public void events(String name, JobEvents publisher) {
        jobName = name;
        events = publisher;
    }

    public void onTakeover(TakeoverListener listener) {
        takeovers = listener;
    }

    /** Replicas take the changes of a checkpoint since the one before, added to the chain they hold. */
    @Override
    public boolean keepsChains() {
        return true;
    }

    /**
     * The most bytes of changes a chain held here takes on top of its whole copy of
     * {@code wholeBytes}: three times that, or {@link #CHAIN_BYTES_FLOOR} for a small one. A growing
     * state's changes can outweigh the whole copy they follow (the million-key job's do), and the
     * sender decides a checkpoint whole or not while the one before may still be on its way
     * ({@link #prefersWhole} reckons with two copies of changes ahead): with twice the whole copy,
     * two such copies were refused (SEND_WHOLE) every third checkpoint, each a checkpoint lost;
     * with three times they fit, and the sender turns to a whole copy before the bound.
     */
    static long chainBound(long wholeBytes) {
        return Math.max(3 * wholeBytes, CHAIN_BYTES_FLOOR);
    }

    /** A copy every target holds now: the chain they hold grows by it, or starts again with it. */
    private void sent(boolean changes, long bytes) {
        if (changes) {
            sentChangesBytes += bytes;
            lastChangesBytes = bytes;
        } else {
            sentWholeBytes = bytes;
            sentChangesBytes = 0; // lastChangesBytes stays: the next chain's changes are likely as large
        }
    }

    /**
     * Whether the next checkpoint should be whole: its changes would likely take the chain the
     * targets hold past the bytes they accept ({@link HeldCopies#chain}: the whole copy's, or the floor), so
     * that the coordinator writes a whole one instead of a copy of changes answered SEND_WHOLE (a
     * failed checkpoint). Reckoned with two more copies of changes as large as the last, since the
     * next checkpoint may be decided while this one is still being sent.
     */
    @Override
    public boolean prefersWhole() {
        long changes = lastChangesBytes;
        return changes > 0 && sentChangesBytes + 2 * changes > chainBound(sentWholeBytes);
    }

    @Override
    public void write(String jobKey, long id, int peer, int peers, Map<String, byte[]> parts) throws IOException {
        write(jobKey, id, id, peer, peers, parts);
    }

    /**
     * Sends checkpoint {@code id} to the targets and returns once all of them hold it and it is
     * committed (see the class comment): whole when {@code base == id}, else its changes, which a
     * target takes only when it holds checkpoint {@code id - 1} of this peer. This peer keeps no copy
     * to send instead: when a target lacks the checkpoint before (it never acknowledged it, or answers
     * SEND_WHOLE) the write fails with an {@link IOException} saying so, and the coordinator's next
     * checkpoint is whole; so does a delivery or commit that does not complete within the
     * acknowledgement timeout. Called in checkpoint order, on one thread (the coordinator's writer).
     */
    @Override
    public void write(String jobKey, long id, long base, int peer, int peers, Map<String, byte[]> parts) throws IOException {
        boolean changes = base != id;
        int[] blocks = blocksOf(parts.keySet());
        long deadline = System.currentTimeMillis() + ackTimeoutMs;
        acksLock.lock();
        try {
            acks.put(id, new HashSet<>());
            wholeWanted.put(id, new HashSet<>());
            commitAcks.put(id, new HashSet<>());
        } finally {
            acksLock.unlock();
        }
        List<Integer> acked;
        try {
            Set<Integer> sent = new HashSet<>();
            acked = replicate(id, changes, blocks, parts, sent, deadline);
            if (acked.isEmpty()) {
                return; // the last peer left: nothing to replicate to
            }
            sent(changes, bytesOf(parts));
            delivery.await(id, deadline);
            acked = commit(id, sent, deadline);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while replicating checkpoint " + id, e);
        } finally {
            acksLock.lock();
            try {
                acks.remove(id);
                wholeWanted.remove(id);
                commitAcks.remove(id);
            } finally {
                acksLock.unlock();
            }
        }
        String covered = Arrays.toString(blocks) + " on peer(s) " + acked;
        if (!covered.equals(lastCovered)) { // the first snapshot, a takeover's blocks, or a new replica after a loss
            lastCovered = covered;
            LOG.info("peer {}: state of block(s) {} replicated at checkpoint {} on peer(s) {}", session.self(),
                    Arrays.toString(blocks), id, acked);
        }
        events.publish(new JobEvent.StateReplicated(jobName, session.self(), JobEvents.now(),
                JobEvents.list(blocks), id, acked));
        WireOut note = new WireOut(32 + 4 * blocks.length);
        note.putByte(REPLICATED).putLong(job).putLong(epoch()).putInt(session.self()).putLong(id).putInt(blocks.length);
        for (int b : blocks) {
            note.putInt(b);
        }
        broadcast(note.buffer());
        noteReplicated(id, blocks);
    }

    /**
     * Sends checkpoint {@code id}'s copy to the targets (adding each to {@code sent}) until every
     * current target holds it; returns them, or nothing when no peer is left to hold a copy.
     */
    private List<Integer> replicate(long id, boolean changes, int[] blocks, Map<String, byte[]> parts, Set<Integer> sent, long deadline)
            throws IOException, InterruptedException {
        List<ByteBuffer> message = put(changes ? CHANGES : WHOLE, id, blocks, parts);
        while (true) {
            List<Integer> targets = targets();
            if (targets.isEmpty()) {
                if (!warnedAlone) {
                    warnedAlone = true;
                    LOG.warn("peer {} is the last one left: its state is no longer replicated", session.self());
                }
                return List.of();
            }
            List<Integer> fresh = new ArrayList<>();
            for (int t : targets) {
                if (!sent.contains(t)) {
                    if (changes && heldBy.getOrDefault(t, -1L) != id - 1) { // a new target after a view change, say
                        throw lacksBase(t, id, "it never acknowledged checkpoint " + (id - 1) + " of this peer");
                    }
                    fresh.add(t);
                }
            }
            for (int t : fresh) {
                sent.add(t);
                sendCopy(t, message);
            }
            acksLock.lock();
            try {
                refusedBy(id, targets);
                if (acks.get(id).containsAll(targets)) {
                    return targets;
                }
                awaitAck(id, targets, "acknowledge", deadline);
            } finally {
                acksLock.unlock();
            }
        }
    }

    /**
     * Commits checkpoint {@code id} on its targets: sends each COMMIT and waits until every current
     * target answered it; a target that never got the copy (the targets changed meanwhile) fails it.
     */
    private List<Integer> commit(long id, Set<Integer> sent, long deadline) throws IOException, InterruptedException {
        WireOut out = new WireOut(32);
        out.putByte(COMMIT).putLong(job).putLong(epoch()).putLong(id);
        ByteBuffer message = out.buffer();
        for (int t : sent) {
            if (!session.isGone(t)) {
                sendQuietly(t, message.duplicate());
            }
        }
        while (true) {
            List<Integer> targets = targets();
            for (int t : targets) {
                if (!sent.contains(t)) {
                    throw new IOException("checkpoint " + id + " of peer " + session.self() + " is not committed: peer " + t
                            + " became its replica after the copy went out (" + session.view() + "); the next checkpoint will be whole");
                }
            }
            acksLock.lock();
            try {
                for (int t : wholeWanted.get(id)) {
                    if (targets.contains(t)) {
                        throw new IOException("checkpoint " + id + " of peer " + session.self() + " is not committed: peer " + t
                                + " does not hold its copy; the next checkpoint will be whole");
                    }
                }
                if (commitAcks.get(id).containsAll(targets)) {
                    return targets;
                }
                awaitAck(id, targets, "commit", deadline);
            } finally {
                acksLock.unlock();
            }
        }
    }

    /** Fails checkpoint {@code id} when one of its {@code targets} answered SEND_WHOLE (under {@link #acksLock}). */
    private void refusedBy(long id, List<Integer> targets) throws IOException {
        for (int t : wholeWanted.get(id)) {
            if (targets.contains(t)) {
                throw lacksBase(t, id, "it answered SEND_WHOLE");
            }
        }
    }

    /** Waits a while for the next answer (under {@link #acksLock}), failing the checkpoint past {@code deadline}. */
    private void awaitAck(long id, List<Integer> targets, String what, long deadline) throws IOException, InterruptedException {
        if (System.currentTimeMillis() > deadline) {
            throw new IOException("peer(s) " + targets + " did not " + what + " checkpoint " + id + " within " + ackTimeoutMs + " ms");
        }
        ackArrived.await(100, TimeUnit.MILLISECONDS);
    }

    /** Why checkpoint {@code id} of changes cannot be replicated on {@code target}: the coordinator's next checkpoint is whole. */
    private IOException lacksBase(int target, long id, String why) {
        return new IOException("the replica on peer " + target + " lacks checkpoint " + id + "'s base (" + why + "): checkpoint " + id
                + " of peer " + session.self() + " holds only changes since checkpoint " + (id - 1) + ", and this peer keeps no whole "
                + "copy to send instead; the next checkpoint not yet begun will be whole");
    }

    /**
     * The PUT of checkpoint {@code id}, as the frames of its chunks: {@code mode} says whether
     * {@code parts} are whole or changes since the checkpoint before.
     */
    private List<ByteBuffer> put(int mode, long id, int[] blocks, Map<String, byte[]> parts) throws IOException {
        List<Map.Entry<byte[], byte[]>> named = new ArrayList<>();
        long body = 4 + 4L * blocks.length + 4;
        for (Map.Entry<String, byte[]> e : new TreeMap<>(parts).entrySet()) {
            byte[] name = e.getKey().getBytes(StandardCharsets.UTF_8);
            named.add(Map.entry(name, e.getValue()));
            body += 4 + name.length + 4 + e.getValue().length;
        }
        long count = Chunks.count(body, chunkBytes);
        if (count > Integer.MAX_VALUE) {
            throw new IOException("checkpoint " + id + " of peer " + session.self() + " is " + body + " bytes: more than "
                    + Integer.MAX_VALUE + " chunks of " + chunkBytes + " bytes");
        }
        long view = epoch();
        Chunks.Out out = new Chunks.Out(body, chunkBytes, (frame, index, n, data) ->
                frame.put((byte) PUT).putLong(job).putLong(view).putLong(id).put((byte) mode).putInt(index).putInt(n).putInt(data));
        out.putInt(blocks.length);
        for (int b : blocks) {
            out.putInt(b);
        }
        out.putInt(named.size());
        for (Map.Entry<byte[], byte[]> e : named) {
            out.putBytes(e.getKey()).putBytes(e.getValue());
        }
        return out.frames();
    }

    /** Sends a copy's chunks to {@code peer}, in order; the rest are not sent once one fails (the peer is gone). */
    private void sendCopy(int peer, List<ByteBuffer> chunks) {
        for (ByteBuffer chunk : chunks) {
            if (!sendQuietly(peer, chunk.duplicate())) {
                return;
            }
        }
    }

    /** The next {@code k} members after this one in the installed view. */
    private List<Integer> targets() {
        List<Integer> live = session.view().membersAfter(session.self());
        return live.subList(0, Math.min(replicas, live.size()));
    }

    private long epoch() {
        return session.view().epoch();
    }

    /** The blocks a snapshot's parts belong to. */
    private int[] blocksOf(Set<String> names) {
        return names.stream().mapToInt(n -> PartNames.instanceOf(n) / workers).distinct().sorted().toArray();
    }

    private void noteReplicated(long id, int[] blocks) {
        synchronized (replicatedCut) {
            for (int b : blocks) {
                if (id > replicatedCut[b]) {
                    previousCut[b] = replicatedCut[b];
                    replicatedCut[b] = id;
                }
            }
        }
    }

    /** The newest checkpoint known to be replicated for {@code block}: its state before that one is safe. */
    public long replicatedCut(int block) {
        synchronized (replicatedCut) {
            return replicatedCut[block];
        }
    }

    /** The replicated checkpoint before the newest for {@code block} (0 while there was at most one). */
    public long previousCut(int block) {
        synchronized (replicatedCut) {
            return previousCut[block];
        }
    }

    /**
     * Before which checkpoint producers may drop what they logged for {@code block}: the newest
     * replicated one with a single replica; with more, the one before it, so that blocks lost
     * together can all resume from one checkpoint (see {@code Takeover}).
     */
    public long logCut(int block) {
        return replicas >= 2 ? previousCut(block) : replicatedCut(block);
    }

    /** The newest committed copy held here, of any peer, that covers {@code block}; null when none does. */
    public Held newestCommittedCovering(int block) {
        return held.newestCommittedCovering(block);
    }

    /** A committed copy held here, of any peer, of {@code block} at exactly checkpoint {@code id}; null when none is. */
    public Held committedCopyAt(int block, long id) {
        return held.committedCopyAt(block, id);
    }

    /** The checkpoints of the copies held here that cover {@code block}, committed or not, ascending. */
    public List<Long> idsCovering(int block) {
        return held.idsCovering(block);
    }

    /**
     * Tells every member of {@code view} (this peer too) which checkpoints of the blocks it moved
     * together this peer knows replicated, so that their hosts agree on one to resume from.
     */
    public void announceCuts(MembershipView view, List<Integer> moved) {
        Map<Integer, CutAgreement.Cuts> mine = new HashMap<>();
        WireOut out = new WireOut(32 + 20 * moved.size());
        out.putByte(CUTS).putLong(job).putLong(epoch()).putLong(view.epoch()).putInt(moved.size());
        for (int b : moved) {
            CutAgreement.Cuts c = new CutAgreement.Cuts(previousCut(b), replicatedCut(b));
            mine.put(b, c);
            out.putInt(b).putLong(c.previous()).putLong(c.newest());
        }
        agreement.forget(view.epoch() - 1); // every member, not only the hosts that decide, drops older views' messages
        agreement.heard(view.epoch(), session.self(), mine);
        ByteBuffer message = out.buffer();
        for (int p : view.members()) {
            if (p != session.self()) {
                sendQuietly(p, message.duplicate());
            }
        }
    }

    /** The checkpoint the blocks {@code view} moved together resume from, once every member told what it knows ({@link CutAgreement}). */
    public long agreedCut(MembershipView view, List<Integer> moved) throws InterruptedException {
        long at = agreement.await(view, moved, session::view, System.currentTimeMillis() + ackTimeoutMs);
        agreement.forget(view.epoch() - 1);
        return at;
    }

    /** Tells every member that {@code blocks} now run on this peer, as view {@code epoch} assigns them. */
    public void announceTakeover(long epoch, int[] blocks) {
        WireOut out = new WireOut(32 + 4 * blocks.length);
        out.putByte(TAKEOVER).putLong(job).putLong(epoch).putInt(session.self()).putInt(blocks.length);
        for (int b : blocks) {
            out.putInt(b);
        }
        broadcast(out.buffer());
    }

    private void broadcast(ByteBuffer message) {
        for (int p = 0; p < session.peers(); p++) {
            if (p != session.self() && !session.isGone(p)) {
                sendQuietly(p, message.duplicate());
            }
        }
    }

    /** A peer that died meanwhile is the failure detector's to report: false when the message was not sent. */
    private boolean sendQuietly(int peer, ByteBuffer message) {
        try {
            session.transport().send(peer, Channels.REPLICA, message);
            return true;
        } catch (IllegalStateException e) {
            LOG.debug("replica message to peer {} not sent: {}", peer, e.getMessage());
            return false;
        }
    }

    private void readLoop() {
        while (!closed) {
            Frame f;
            try {
                f = session.transport().receive(Channels.REPLICA, Duration.ofMillis(200));
            } catch (FrameException e) {
                onFailure.accept(new IllegalStateException("garbage on the replica channel: " + e.getMessage(), e));
                continue;
            } catch (IllegalStateException | InterruptedException e) {
                return;
            }
            dropPartialsOfGone();
            if (f == null) {
                continue;
            }
            try {
                handle(f);
            } catch (FrameException e) {
                onFailure.accept(new IllegalStateException("malformed replica message: " + e.getMessage(), e));
            }
        }
    }

    private void handle(Frame f) {
        WireIn in = new WireIn(f.payload(), f.peer());
        int kind = in.getByte();
        long of = in.getLong();
        if (of != job) {
            return;
        }
        long epoch = in.getLong();
        if (!session.view().contains(f.peer())) {
            partials.remove(f.peer());
            LOG.debug("peer {}: ignoring replica message {} of view {} from peer {}, removed by {}", session.self(), kind, epoch, f.peer(),
                    session.view());
            return;
        }
        switch (kind) {
            case PUT -> {
                try {
                    chunk(in, f);
                } catch (FrameException e) {
                    partials.remove(f.peer());
                    throw e;
                }
            }
            case ACK -> {
                long id = in.getLong();
                int status = in.getByte();
                if (status != HELD && status != SEND_WHOLE && status != COMMITTED) {
                    throw in.malformed("ACK of checkpoint " + id + " with unknown status " + status);
                }
                if (status == HELD) {
                    heldBy.merge(f.peer(), id, Math::max);
                }
                acksLock.lock();
                try {
                    Set<Integer> got = (status == HELD ? acks : status == COMMITTED ? commitAcks : wholeWanted).get(id);
                    if (got != null) {
                        got.add(f.peer());
                        ackArrived.signalAll();
                    }
                } finally {
                    acksLock.unlock();
                }
            }
            case REPLICATED -> {
                int from = in.getInt();
                long id = in.getLong();
                noteReplicated(id, readBlocks(in));
                if (from != f.peer()) {
                    throw in.malformed("REPLICATED names peer " + from + " but came from peer " + f.peer());
                }
            }
            case COMMIT -> {
                long id = in.getLong();
                answer(f.peer(), id, held.commit(f.peer(), id) ? COMMITTED : SEND_WHOLE);
            }
            case CUTS -> {
                long view = in.getLong();
                Map<Integer, CutAgreement.Cuts> cuts = new HashMap<>();
                for (int n = in.getCount(20); n > 0; n--) {
                    cuts.put(block(in.getInt(), f.peer()), new CutAgreement.Cuts(in.getLong(), in.getLong()));
                }
                agreement.heard(view, f.peer(), cuts);
            }
            case TAKEOVER -> {
                int host = in.getInt();
                int[] blocks = readBlocks(in);
                if (host != f.peer()) {
                    throw in.malformed("TAKEOVER names host " + host + " but came from peer " + f.peer());
                }
                takeovers.movedTo(host, epoch, blocks);
            }
            default -> throw in.malformed("unknown replica message kind " + kind);
        }
    }

    /**
     * One chunk of a PUT: gathered into its sender's copy in progress; the last one's copy is
     * held (or added to its chain) and acknowledged.
     */
    private void chunk(WireIn in, Frame f) {
        int from = f.peer();
        long id = in.getLong();
        int mode = in.getByte();
        int index = in.getInt();
        int count = in.getInt();
        int length = in.getInt();
        String chunk = "chunk " + index + " of " + count + " of checkpoint " + id;
        if (mode != WHOLE && mode != CHANGES) {
            throw in.malformed("PUT of checkpoint " + id + " of unknown mode " + mode);
        }
        if (count < 1 || index < 0 || index >= count) {
            throw in.malformed("PUT " + chunk + ": no such chunk");
        }
        if (length < 1 || length != in.remaining()) {
            throw in.malformed("PUT " + chunk + " announces " + length + " data bytes, " + in.remaining() + " follow");
        }
        ByteBuffer payload = f.payload();
        ByteBuffer data = payload.duplicate().position(payload.limit() - length).slice();
        Partial copy = partials.get(from);
        if (index == 0) {
            if (copy != null) {
                LOG.info("peer {}: dropping the copy of checkpoint {} of peer {} with {} of its {} chunks in: peer {} started another, of "
                        + "checkpoint {}", session.self(), copy.id(), from, copy.next(), copy.count(), from, id);
                partials.remove(from);
            }
            copy = new Partial(id, mode, count, new ArrayList<>());
            if (count > 1) {
                partials.put(from, copy);
            }
        } else if (copy == null || copy.id() != id || copy.mode() != mode) {
            LOG.debug("peer {}: ignoring {} from peer {}: a chunk of a copy dropped or never started", session.self(), chunk, from);
            return;
        } else if (count != copy.count()) {
            throw in.malformed("PUT " + chunk + ", but the copy in progress has " + copy.count() + " chunks");
        } else if (index != copy.next()) {
            partials.remove(from);
            LOG.warn("peer {}: {} from peer {} arrived where chunk {} was due: the copy is dropped, not acknowledged", session.self(),
                    chunk, from, copy.next());
            return;
        }
        copy.data().add(data);
        if (copy.next() < count) {
            return;
        }
        partials.remove(from);
        Chunks.In body = new Chunks.In(from, copy.data());
        int[] blocks = new int[body.getCount(4)];
        for (int i = 0; i < blocks.length; i++) {
            blocks[i] = block(body.getInt(), from);
        }
        Map<String, byte[]> parts = new HashMap<>();
        for (int n = body.getCount(8); n > 0; n--) {
            parts.put(body.getString(), body.getBytes());
        }
        if (body.remaining() != 0) {
            throw body.malformed("PUT of checkpoint " + id + ": " + body.remaining() + " byte(s) after its parts");
        }
        int status = mode == WHOLE ? held.keep(new Held(from, id, blocks, List.of(Map.copyOf(parts)))) : held.chain(from, id, blocks, parts);
        answer(from, id, status);
    }

    /** Acknowledges {@code from}'s checkpoint {@code id} with {@code status}, from the acknowledging thread. */
    private void answer(int from, long id, int status) {
        WireOut ack = new WireOut(32);
        ack.putByte(ACK).putLong(job).putLong(epoch()).putLong(id).putByte(status);
        ByteBuffer message = ack.buffer();
        try {
            acker.execute(() -> sendQuietly(from, message));
        } catch (RejectedExecutionException e) {
            LOG.debug("peer {}: closed, acknowledgement of checkpoint {} to peer {} not sent", session.self(), id, from);
        }
    }

    /** Drops the copies in progress of senders the installed view no longer holds (the reader's thread only). */
    private void dropPartialsOfGone() {
        if (!partials.isEmpty()) {
            partials.keySet().removeIf(p -> !session.view().contains(p));
        }
    }

    private int[] readBlocks(WireIn in) {
        int[] blocks = new int[in.getCount(4)];
        for (int i = 0; i < blocks.length; i++) {
            blocks[i] = block(in.getInt(), in.peer());
        }
        return blocks;
    }

    /** {@code b}, a block named by {@code from}, unless no such block exists. */
    private int block(int b, int from) {
        if (b < 0 || b >= session.peers()) {
            throw new FrameException(from, "block " + b + " outside [0, " + session.peers() + ")");
        }
        return b;
    }

    /** A replicated job starts fresh: replicas live in memory, not across runs. */
    @Override
    public Optional<Restored> newestComplete(String jobKey, int peer, int peers) {
        return Optional.empty();
    }

    @Override
    public void discardNewerThan(String jobKey, long id, int peer) {
    }

    @Override
    public String describe() {
        return "the memory of the next " + replicas + " live peer(s)";
    }

    @Override
    public void close() {
        closed = true;
        acker.shutdownNow();
        try {
            reader.join(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
