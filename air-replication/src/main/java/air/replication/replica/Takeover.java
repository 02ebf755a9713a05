package air.replication.replica;

import air.runtime.JobConfig;
import air.runtime.JobEvent;
import air.runtime.JobFailedException;
import air.runtime.impl.checkpoint.CheckpointCoordinator;
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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a replicated job does on this peer when another is lost. The next live peer after the dead
 * one in rank order takes its blocks over: it builds their tasklets from the newest snapshot of the
 * dead peer it holds, moves the blocks to itself, starts them and tells the others; every peer then
 * sends each moved destination what it logged for it. The dead peer's sources resume from their
 * replicated positions and catch up on barriers; nothing else rolls back. Meters:
 * {@code air.takeover.duration} (loss detected to the taken-over tasklets running), {@code air.takeovers}.
 *
 * <p>A takeover the copies cannot support fails the job, saying why: no copy of the dead peer's
 * state here, a copy older than what producers already dropped from their logs, or the loss of a
 * peer after this one had finished its part (its share could no longer be completed).
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
    private final Starter starter;
    private final Consumer<Throwable> onFailure;
    private final Timer duration;
    private final Counter count;
    private final AtomicInteger restoring = new AtomicInteger();
    /** Guards {@code finishing} and {@code underWay}: a lock, not a monitor, since the job's joiner (maybe a virtual thread) waits on it. */
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition settled = lock.newCondition();
    private boolean finishing;
    private volatile JobEvents events = JobEvents.NONE;
    private int underWay;

    Takeover(PhysicalPlan plan, JobConfig config, JobContext context, ReplicationContext replication, CheckpointCoordinator coordinator,
             MeterRegistry registry, Starter starter) {
        this.plan = plan;
        this.config = config;
        this.context = context;
        this.replication = replication;
        this.coordinator = coordinator;
        this.starter = starter;
        this.onFailure = context::fail;
        this.duration = Timer.builder("air.takeover.duration").tag("job", config.name())
                .description("a peer's loss detected to its share running again on another").register(registry);
        this.count = Counter.builder("air.takeovers").tag("job", config.name()).register(registry);
    }

    /** Where {@link air.runtime.JobEvent.Takeover} and {@link air.runtime.JobEvent.RunningAgain} go. */
    void events(JobEvents publisher) {
        events = publisher;
    }

    private int self() {
        return replication.session().self();
    }

    /** A peer was lost (on the failure detector's thread). */
    void peerLost(int dead) {
        long detected = System.nanoTime();
        List<Integer> live = replication.session().liveAfter(dead);
        if (live.isEmpty()) {
            return;
        }
        int host = live.get(0);
        LOG.warn("job '{}': peer {} lost; peer {} takes over its share from its replicated state", config.name(), dead, host);
        if (host == self()) {
            lock.lock();
            try {
                if (finishing) {
                    onFailure.accept(new JobFailedException("job '" + config.name() + "' failed on peer " + self() + ": peer " + dead
                            + " was lost after this peer had finished its part, so its share can no longer be taken over", null));
                    return;
                }
                underWay++;
            } finally {
                lock.unlock();
            }
            Thread.ofPlatform().daemon().name(config.name() + "/takeover-" + dead).start(() -> adopt(dead, detected));
        }
    }

    /** Another peer took blocks over (on the replica reader's thread). */
    void movedTo(int dead, int host, long id, int[] blocks) {
        replication.placement().move(blocks, host);
        LOG.info("job '{}': peer {}'s share now runs on peer {} from checkpoint {}; sending it what was logged for it", config.name(),
                dead, host, id);
        Thread.ofPlatform().daemon().name(config.name() + "/resend-to-" + host).start(() -> {
            try {
                replication.catchUpOutputs();
            } catch (RuntimeException e) {
                onFailure.accept(e);
            }
        });
    }

    private void adopt(int dead, long detected) {
        try {
            int[] blocks = replication.placement().blocksOn(dead);
            ReplicaService.Held held = replication.replicas().heldFor(dead);
            check(dead, blocks, held);
            long interval = config.replicationIntervalMs() * 1_000_000L;
            List<JobGraph> graphs = new ArrayList<>();
            Set<String> parts = new HashSet<>();
            AtomicInteger pending = new AtomicInteger();
            Runnable restored = () -> {
                restoring.decrementAndGet();
                if (pending.decrementAndGet() == 0) {
                    LOG.info("job '{}' RUNNING again on peer {}: every tasklet of peer {}'s share back at checkpoint {} after {} ms",
                            config.name(), self(), dead, held.id(), (System.nanoTime() - detected) / 1_000_000);
                    events.publish(new JobEvent.RunningAgain(config.name(), self(), JobEvents.now(),
                            dead, held.id(), (System.nanoTime() - detected) / 1_000_000));
                }
            };
            for (int b : blocks) {
                graphs.add(JobGraph.build(plan, config, context, replication.session().transport(), part -> {
                    byte[] bytes = held.parts().get(part);
                    if (bytes == null) {
                        throw new IllegalStateException("the copy of peer " + dead + "'s state at checkpoint " + held.id()
                                + " has no state for tasklet " + part);
                    }
                    pending.incrementAndGet();
                    restoring.incrementAndGet();
                    return new Checkpointing(coordinator, interval, held.id(), bytes, restored);
                }, new ReplicatedWiring(replication), b, "replication"));
            }
            graphs.forEach(g -> parts.addAll(g.parts()));
            coordinator.expectMore(parts);
            replication.placement().move(blocks, self());
            starter.start(graphs);
            replication.replicas().announceTakeover(dead, held.id(), blocks);
            replication.catchUpOutputs();
            long nanos = System.nanoTime() - detected;
            duration.record(nanos, TimeUnit.NANOSECONDS);
            count.increment();
            LOG.info("job '{}' TAKEOVER on peer {}: runs peer {}'s block(s) {} from checkpoint {} ({} tasklets), {} ms after the loss",
                    config.name(), self(), dead, Arrays.toString(blocks), held.id(), parts.size(), nanos / 1_000_000);
            events.publish(new JobEvent.Takeover(config.name(), self(), JobEvents.now(), dead,
                    JobEvents.list(blocks), held.id()));
        } catch (RuntimeException e) {
            onFailure.accept(new JobFailedException("job '" + config.name() + "' failed on peer " + self() + ": it could not take over "
                    + "peer " + dead + "'s share: " + e.getMessage(), e));
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

    private void check(int dead, int[] blocks, ReplicaService.Held held) {
        if (held == null) {
            throw new IllegalStateException("peer " + self() + " holds no copy of its state (replicas=" + config.replicas()
                    + "): it was lost before its first snapshot was replicated, or two peers were lost within one replication interval");
        }
        Set<Integer> covered = new HashSet<>();
        for (int b : held.blocks()) {
            covered.add(b);
        }
        for (int b : blocks) {
            if (!covered.contains(b)) {
                throw new IllegalStateException("its newest copy here (checkpoint " + held.id() + ") does not cover block " + b
                        + ", which it took over after that copy");
            }
            long dropped = replication.replicas().replicatedCut(b);
            if (held.id() < dropped) {
                throw new IllegalStateException("its newest copy here is checkpoint " + held.id() + " but producers already dropped "
                        + "what they logged before checkpoint " + dropped + " (it was replicated to another peer since lost)");
            }
        }
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
