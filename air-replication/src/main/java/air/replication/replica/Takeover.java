package air.replication.replica;

import air.runtime.JobConfig;
import air.runtime.JobEvent;
import air.runtime.JobFailedException;
import air.runtime.impl.checkpoint.CheckpointCoordinator;
import air.runtime.impl.cluster.MembershipView;
import air.runtime.impl.event.JobEvents;
import air.runtime.impl.exec.Checkpointing;
import air.runtime.impl.exec.JobContext;
import air.runtime.impl.exec.JobGraph;
import air.runtime.plan.PhysicalPlan;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a replicated job does on this peer when a membership view removes peers. Who owns a block
 * is a function of the view alone ({@link #owner}): its first peer, or else the first member after
 * it in ring order; so every survivor agrees, and a block whose new owner was itself lost before
 * it announced the takeover moves on with the next view instead of being owned by nobody. The
 * owner builds the tasklets of each block it newly owns from the newest committed copy here that covers it
 * (of whichever peer replicated it last), moves the blocks to itself, starts them and tells the
 * others; every peer then sends each moved destination what it logged for it. The blocks' sources
 * resume from their replicated positions and catch up on barriers; nothing else rolls back.
 * Meters: {@code air.takeover.duration} (view installed to the taken-over tasklets running),
 * {@code air.takeovers}.
 *
 * <p>A takeover the copies cannot support fails the job at once, saying why: no copy of a block's
 * state here (with one replica, two peers lost within one interval), a copy older than what
 * producers already dropped from their logs, or a loss after this peer had finished its part.
 */
final class Takeover {

    private static final Logger LOG = LoggerFactory.getLogger(Takeover.class);

    /** Starts the tasklets of blocks taken over as part of the running job. */
    interface Starter {
        void start(List<JobGraph> graphs);
    }

    private final PhysicalPlan plan;
    private final JobConfig config;
    private final JobContext context;
    private final ReplicationContext replication;
    private final CheckpointCoordinator coordinator;
    /** Told of the two-phase-commit sinks of every block taken over. */
    private final Consumer<JobGraph> adoptedSinks;
    private final Starter starter;
    private final Consumer<Throwable> onFailure;
    private final Timer duration;
    private final Counter count;
    private final AtomicInteger restoring = new AtomicInteger();
    /** The blocks whose tasklets run here (this peer's own and those adopted); guarded by {@code lock}. */
    private final Set<Integer> hostedHere = new HashSet<>();
    /** The view before the newest one handed here: what a new view moved is the blocks whose owner it changed (guarded by {@code lock}). */
    private MembershipView previousView;
    /** Guards {@code finishing} and {@code underWay}: a lock, not a monitor, since the job's joiner (maybe a virtual thread) waits on it. */
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition settled = lock.newCondition();
    private boolean finishing;
    private volatile JobEvents events = JobEvents.NONE;
    private int underWay;

    Takeover(PhysicalPlan plan, JobConfig config, JobContext context, ReplicationContext replication, CheckpointCoordinator coordinator,
             Consumer<JobGraph> adoptedSinks, MeterRegistry registry, Starter starter) {
        this.plan = plan;
        this.config = config;
        this.context = context;
        this.replication = replication;
        this.coordinator = coordinator;
        this.adoptedSinks = adoptedSinks;
        this.starter = starter;
        this.onFailure = context::fail;
        this.duration = Timer.builder("air.takeover.duration").tag("job", config.name())
                .description("a peer's loss detected to its share running again on another").register(registry);
        this.count = Counter.builder("air.takeovers").tag("job", config.name()).register(registry);
        this.hostedHere.add(replication.session().self());
        this.previousView = replication.session().view();
    }

    /** Who owns {@code block} under {@code view}: its first peer while a member, else the first member after it in ring order. */
    static int owner(MembershipView view, int block) {
        return view.contains(block) ? block : view.hostAfter(block);
    }

    /** Where {@link air.runtime.JobEvent.Takeover} and {@link air.runtime.JobEvent.RunningAgain} go. */
    void events(JobEvents publisher) {
        events = publisher;
    }

    private int self() {
        return replication.session().self();
    }

    /** A new view removed peers (on the membership's thread, in view order): adopts the blocks it gives this peer. */
    void viewChanged(MembershipView view, List<Integer> removed) {
        long detected = System.nanoTime();
        for (int dead : removed) {
            LOG.warn("job '{}': peer {} lost ({}); peer {} takes over its share from its replicated state", config.name(), dead, view,
                    owner(view, dead));
        }
        List<Integer> adopt = new ArrayList<>();
        List<Integer> moved = new ArrayList<>();
        lock.lock();
        try {
            for (int b = 0; b < view.world(); b++) {
                if (owner(previousView, b) != owner(view, b)) {
                    moved.add(b);
                }
            }
            previousView = view;
        } finally {
            lock.unlock();
        }
        if (movedTogether(moved)) {
            replication.replicas().announceCuts(view, moved); // every member, so that the hosts agree on one checkpoint
        }
        lock.lock();
        try {
            for (int b = 0; b < view.world(); b++) {
                if (owner(view, b) == self() && !hostedHere.contains(b)) {
                    adopt.add(b);
                }
            }
            if (adopt.isEmpty()) {
                return;
            }
            if (finishing) {
                onFailure.accept(new JobFailedException("job '" + config.name() + "' failed on peer " + self() + ": peer(s) " + removed
                        + " were lost after this peer had finished its part, so their share can no longer be taken over", null));
                return;
            }
            hostedHere.addAll(adopt);
            underWay++;
        } finally {
            lock.unlock();
        }
        int[] blocks = adopt.stream().mapToInt(Integer::intValue).toArray();
        Thread.ofPlatform().daemon().name(config.name() + "/takeover-" + view.epoch())
                .start(() -> adopt(view, removed, moved, blocks, detected));
    }

    /** Another peer took blocks over under view {@code epoch} (on the replica reader's thread). */
    void movedTo(int host, long epoch, int[] blocks) {
        MembershipView view = replication.session().view();
        if (view.epoch() >= epoch) {
            for (int b : blocks) {
                if (owner(view, b) != host) {
                    LOG.warn("job '{}': ignoring peer {}'s takeover of block {} under view {}: {} gives it to peer {}", config.name(), host,
                            b, epoch, view, owner(view, b));
                    return;
                }
            }
        }
        replication.placement().move(blocks, host);
        LOG.info("job '{}': block(s) {} now run on peer {} (view {}); sending it what was logged for them", config.name(),
                Arrays.toString(blocks), host, epoch);
        Thread.ofPlatform().daemon().name(config.name() + "/resend-to-" + host).start(() -> {
            try {
                replication.catchUpOutputs();
            } catch (RuntimeException e) {
                onFailure.accept(e);
            }
        });
    }

    private void adopt(MembershipView view, List<Integer> removed, List<Integer> moved, int[] blocks, long detected) {
        int dead = removed.isEmpty() ? blocks[0] : removed.get(0);
        try {
            long interval = config.replicationIntervalMs() * 1_000_000L;
            List<JobGraph> graphs = new ArrayList<>();
            Set<String> parts = new HashSet<>();
            AtomicInteger pending = new AtomicInteger();
            long newest = 0;
            List<ReplicaService.Held> copies = copiesFor(view, moved, blocks);
            for (ReplicaService.Held held : copies) {
                newest = Math.max(newest, held.id());
            }
            long restoredAt = newest;
            Runnable restored = () -> {
                restoring.decrementAndGet();
                if (pending.decrementAndGet() == 0) {
                    LOG.info("job '{}' RUNNING again on peer {}: every tasklet of block(s) {} back at its checkpoint after {} ms",
                            config.name(), self(), Arrays.toString(blocks), (System.nanoTime() - detected) / 1_000_000);
                    events.publish(new JobEvent.RunningAgain(config.name(), self(), JobEvents.now(),
                            dead, restoredAt, (System.nanoTime() - detected) / 1_000_000));
                }
            };
            for (int i = 0; i < blocks.length; i++) {
                ReplicaService.Held held = copies.get(i);
                graphs.add(JobGraph.build(plan, config, context, replication.session().transport(), part -> {
                    byte[] bytes = held.part(part); // folded here, over the chain the replica kept as it arrived
                    if (bytes == null) {
                        throw new IllegalStateException("the copy of peer " + held.from() + "'s state at checkpoint " + held.id()
                                + " has no state for tasklet " + part);
                    }
                    pending.incrementAndGet();
                    restoring.incrementAndGet();
                    return new Checkpointing(coordinator, interval, held.id(), bytes, restored);
                }, new ReplicatedWiring(replication), blocks[i], "replication"));
            }
            graphs.forEach(g -> parts.addAll(g.parts()));
            graphs.forEach(adoptedSinks);
            coordinator.expectMore(parts);
            replication.placement().move(blocks, self());
            starter.start(graphs);
            replication.replicas().announceTakeover(view.epoch(), blocks);
            replication.catchUpOutputs();
            long nanos = System.nanoTime() - detected;
            duration.record(nanos, TimeUnit.NANOSECONDS);
            count.increment();
            LOG.info("job '{}' TAKEOVER on peer {}: runs peer(s) {}'s block(s) {} from checkpoint {} ({} tasklets, {}), {} ms after the "
                    + "loss", config.name(), self(), removed, Arrays.toString(blocks), newest, parts.size(), view, nanos / 1_000_000);
            Set<Integer> lost = new TreeSet<>(removed);
            for (int b : blocks) {
                if (!view.contains(b)) {
                    lost.add(b); // a block whose first host died before its takeover was announced: it moved on with this view
                }
            }
            for (int d : lost) {
                events.publish(new JobEvent.Takeover(config.name(), self(), JobEvents.now(), d, JobEvents.list(blocks), newest));
            }
        } catch (RuntimeException e) {
            onFailure.accept(new JobFailedException("job '" + config.name() + "' failed on peer " + self() + ": it could not take over "
                    + "block(s) " + Arrays.toString(blocks) + " of peer(s) " + removed + " (" + view + "): " + e.getMessage(), e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            onFailure.accept(new JobFailedException("job '" + config.name() + "' failed on peer " + self() + ": interrupted while taking "
                    + "over block(s) " + Arrays.toString(blocks), e));
        } finally {
            lock.lock();
            try {
                underWay--;
                settled.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /** Whether the blocks one view moved must resume from one checkpoint agreed by every member ({@link CutAgreement}). */
    private boolean movedTogether(List<Integer> moved) {
        return moved.size() >= 2 && config.replicas() >= 2;
    }

    /**
     * The copies the blocks adopted here resume from. Blocks moved by one view must all resume from
     * one checkpoint: what they sent each other after the older of two copies lived only in the
     * lost peers' logs, so two copies of different checkpoints would lose it. With one block moved,
     * or one replica (where two losses cannot be survived anyway), the newest committed copy does;
     * with several and two or more replicas, every host restores its moved blocks at the checkpoint
     * every member agreed on ({@link CutAgreement}: the newest previous replicated checkpoint any
     * member knows, from which producers keep their logs, {@link ReplicaService#logCut}) and fails,
     * saying so, when it holds no committed copy of one at that checkpoint.
     */
    private List<ReplicaService.Held> copiesFor(MembershipView view, List<Integer> moved, int[] blocks) throws InterruptedException {
        if (!movedTogether(moved)) {
            List<ReplicaService.Held> copies = new ArrayList<>();
            for (int b : blocks) {
                copies.add(copyOf(b));
            }
            return copies;
        }
        long at = replication.replicas().agreedCut(view, moved);
        List<ReplicaService.Held> copies = new ArrayList<>();
        for (int b : blocks) {
            ReplicaService.Held held = replication.replicas().committedCopyAt(b, at);
            if (held == null) {
                throw new IllegalStateException("block(s) " + moved + " moved together under " + view + " must resume from one checkpoint, "
                        + at + ", but peer " + self() + " holds no committed copy of block " + b + " at it (its copies: "
                        + replication.replicas().idsCovering(b) + ")");
            }
            copies.add(held);
        }
        return copies;
    }

    /** The newest committed copy here covering {@code block}, checked against what producers already dropped from their logs. */
    private ReplicaService.Held copyOf(int block) {
        ReplicaService.Held held = replication.replicas().newestCommittedCovering(block);
        if (held == null) {
            throw new IllegalStateException("peer " + self() + " holds no copy of block " + block + "'s state (replicas="
                    + config.replicas() + "): it was lost before its first snapshot was replicated and committed, or more peers than "
                    + "replicas were lost within one replication interval (copies held, none committed: "
                    + replication.replicas().idsCovering(block) + ")");
        }
        long dropped = replication.replicas().logCut(block);
        if (held.id() < dropped) {
            throw new IllegalStateException("its newest copy of block " + block + " here is checkpoint " + held.id() + " (from peer "
                    + held.from() + ") but producers already dropped what they logged before checkpoint " + dropped
                    + " (that copy went to a peer since lost)");
        }
        return held;
    }

    /** Whether taken-over tasklets are still restoring their state. */
    boolean recovering() {
        return restoring.get() > 0;
    }

    /**
     * This peer's tasklets are done: waits for a takeover under way to have started its tasklets;
     * a peer lost from now on that this one would take over fails the job.
     */
    void beginFinishing() throws InterruptedException {
        lock.lock();
        try {
            while (underWay > 0) {
                settled.await();
            }
            finishing = true;
        } finally {
            lock.unlock();
        }
    }
}
