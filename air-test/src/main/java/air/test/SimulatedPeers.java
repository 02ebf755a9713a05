package air.test;

import air.channels.Channels;
import air.channels.InJvmTransports;
import air.channels.Transport;
import air.dsl.Checkpoints;
import air.runtime.Cluster;
import air.runtime.JobConfig;
import air.runtime.JobEvent;
import air.runtime.api.CheckpointStore;
import air.runtime.api.SinkFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * A deterministic multi-peer simulation with failure injection: K simulated peers in this JVM over
 * the in-JVM transport, a seeded scheduler on the simulated network, and peers lost at chosen
 * steps — so that a test can check that its job's output survives the loss of a peer exactly once,
 * under replication (the survivors take the lost peer's share over) or checkpoints (the whole
 * simulated world restarts from the newest complete checkpoint, as the launcher's restart
 * supervisor restarts processes).
 *
 * <pre>{@code
 * SimulatedPeers sim = SimulatedPeers.of(3).seed(7).replication(1, 50).losePeer(1).afterSnapshots(2).atStep(20);
 * SimulatedPeers.Outcome out = sim.runAndCompare(peer -> {
 *     Pipeline p = Pipeline.create();
 *     p.readFrom(source).withTimestamps(...).keyBy(...).window(Windows.tumbling(100)).aggregate(Aggregations.count())
 *             .writeTo(peer.sink());                                  // the kit's exactly-once collecting sink
 *     p.execute(peer.config(JobConfig.defaults().workers(2)));        // cluster, fault tolerance, the kit's listener
 * });
 * // out.output(): every row the surviving sinks committed; out.losses(), out.takeovers(), out.restarts(): what happened
 * }</pre>
 *
 * <p><b>Steps.</b> A step is a <em>data frame</em> a peer sends to another (a frame on a shuffle
 * channel: the records, partial windows and progress that make up the job's work); heartbeats and
 * control messages, which follow the clock, do not count. {@code losePeer(r).afterSnapshots(k).atStep(s)}
 * loses peer {@code r} as it sends its {@code s}-th data frame after its {@code k}-th snapshot: under
 * replication a snapshot is peer {@code r}'s state replicated on another peer, under checkpoints a
 * checkpoint every peer has written. Counting from a snapshot is what makes the test meaningful: a
 * peer lost before its first replicated snapshot cannot be taken over (AIR refuses it, saying so),
 * and a restart with no checkpoint starts from scratch and tests no recovery. {@code k} is 1 unless
 * set; {@code afterSnapshots(0)} counts from the start. The lost peer's frame {@code s} and every
 * later one are never delivered; frames it was handing over at that moment on other threads may or
 * may not be, as bytes in a killed process's socket buffers may or may not arrive.
 *
 * <p><b>What is deterministic.</b> For a given seed and settings: the fault point, in steps (peer,
 * snapshot and data-frame number; {@link Loss#atSeededStep} draws the step from the seed); the
 * scheduler's perturbation of every frame, which is a pure function of the seed, the link
 * (sender, receiver, channel) and the frame's number on that link ({@link #perturbation}); each link
 * stays FIFO, as the progress protocol requires; and, for a job whose output AIR guarantees, the
 * output, which must equal a run without failures. <b>What is not:</b> the JVM's scheduling of the
 * peers' threads, so how frames of different links interleave, which records a given data frame
 * carries, when a snapshot is taken (snapshot intervals are wall-clock time) and therefore which
 * checkpoint a restart resumes from; the network-wide frame number of the fault, reported for
 * information. A job must run long enough for the fault to land (k snapshot intervals and s data
 * frames); if it ends first, the simulation fails saying how far the peer got.
 *
 * <p><b>Bounded.</b> Every run ends within its timeout (two minutes unless set) and every thread it
 * started has ended when it returns; the checkpoint directory it makes is deleted. A failure is an
 * {@link AssertionError} naming the peer, the attempt and the fault's step.
 */
public final class SimulatedPeers {

    /** What one simulated peer runs: build the pipeline, write to {@link Peer#sink()}, execute with {@link Peer#config}. */
    @FunctionalInterface
    public interface PeerJob {
        void run(Peer peer) throws Exception;
    }

    /** How the simulated world recovers from a lost peer. */
    public enum Recovery { NONE, REPLICATION, CHECKPOINTS }

    /** A planned loss: peer {@code peer} at its data frame {@code step} after its {@code afterSnapshots}-th snapshot. */
    public record Fault(int peer, int afterSnapshots, long step) {
        @Override
        public String toString() {
            return "peer " + peer + " lost at its data frame " + step + (afterSnapshots > 0 ? " after its snapshot " + afterSnapshots : "");
        }
    }

    /** A loss that happened: the planned fault, in which attempt (0 unless restarted), and the frame's number on the whole network. */
    public record Lost(Fault fault, int attempt, long networkFrame) {
        @Override
        public String toString() {
            return fault + " (attempt " + attempt + ", network frame " + networkFrame + ")";
        }
    }

    /** Heartbeats every 50 ms, a silent peer lost after 5 s, 20 s to start (as {@link InJvmPeers#OPTIONS}). */
    public static final Cluster.Options OPTIONS = InJvmPeers.OPTIONS;

    private final int peers;
    private final long seed;
    private final Duration timeout;
    private final Recovery recovery;
    private final int replicas;
    private final long intervalMs;
    private final boolean perturb;
    private final List<PlannedLoss> losses;

    /** A loss as planned: the step is {@code [low, high]}, drawn from the seed when they differ. */
    private record PlannedLoss(int peer, int afterSnapshots, long low, long high) {
        Fault resolve(long seed, int index) {
            long step = low == high ? low : low + Math.floorMod(mix(seed, 0x5EED, peer, index, afterSnapshots), high - low + 1);
            return new Fault(peer, afterSnapshots, step);
        }
    }

    private SimulatedPeers(int peers, long seed, Duration timeout, Recovery recovery, int replicas, long intervalMs, boolean perturb,
                           List<PlannedLoss> losses) {
        this.peers = peers;
        this.seed = seed;
        this.timeout = timeout;
        this.recovery = recovery;
        this.replicas = replicas;
        this.intervalMs = intervalMs;
        this.perturb = perturb;
        this.losses = List.copyOf(losses);
    }

    /** {@code peers} simulated peers (at least 2), seed 0, no fault tolerance, no losses, two minutes. */
    public static SimulatedPeers of(int peers) {
        if (peers < 2) {
            throw new IllegalArgumentException("SimulatedPeers.of(peers): a simulation needs at least 2 peers, was " + peers);
        }
        return new SimulatedPeers(peers, 0, Duration.ofMinutes(2), Recovery.NONE, 0, 0, true, List.of());
    }

    /** The seed of the scheduler's perturbations and of seeded fault steps. */
    public SimulatedPeers seed(long s) {
        return new SimulatedPeers(peers, s, timeout, recovery, replicas, intervalMs, perturb, losses);
    }

    /** The bound on a whole run (every attempt together). */
    public SimulatedPeers timeout(Duration t) {
        Objects.requireNonNull(t, "SimulatedPeers.timeout(t): t is null");
        if (t.isNegative() || t.isZero()) {
            throw new IllegalArgumentException("SimulatedPeers.timeout(t): must be positive, was " + t);
        }
        return new SimulatedPeers(peers, seed, t, recovery, replicas, intervalMs, perturb, losses);
    }

    /** Without the scheduler's perturbations (frames are handed over at once); the fault points stay. */
    public SimulatedPeers withoutPerturbation() {
        return new SimulatedPeers(peers, seed, timeout, recovery, replicas, intervalMs, false, losses);
    }

    /** Jobs run with {@code JobConfig.replication(replicas, intervalMs)}: survivors take a lost peer's share over. */
    public SimulatedPeers replication(int r, long interval) {
        if (r < 1 || r >= peers) {
            throw new IllegalArgumentException("SimulatedPeers.replication(replicas, intervalMs): replicas must be in [1, " + peers
                    + "), was " + r);
        }
        return new SimulatedPeers(peers, seed, timeout, Recovery.REPLICATION, r, requireInterval(interval), perturb, losses);
    }

    /**
     * Jobs run with checkpoints every {@code intervalMs} in a directory the simulation makes (and
     * deletes); a lost peer restarts the whole simulated world on a fresh network, which resumes
     * from the newest checkpoint every peer completed. The n-th planned loss lands in attempt n.
     */
    public SimulatedPeers checkpoints(long interval) {
        return new SimulatedPeers(peers, seed, timeout, Recovery.CHECKPOINTS, 0, requireInterval(interval), perturb, losses);
    }

    private static long requireInterval(long interval) {
        if (interval < 1) {
            throw new IllegalArgumentException("SimulatedPeers: the snapshot interval must be >= 1 ms, was " + interval);
        }
        return interval;
    }

    /** Plans the loss of {@code peer}: say when with {@link Loss#atStep} or {@link Loss#atSeededStep}. */
    public Loss losePeer(int peer) {
        if (peer < 0 || peer >= peers) {
            throw new IllegalArgumentException("SimulatedPeers.losePeer(peer): must be in [0, " + peers + "), was " + peer);
        }
        return new Loss(peer, 1);
    }

    /** The same simulation without any planned loss: the run to compare with. */
    public SimulatedPeers withoutFailures() {
        return new SimulatedPeers(peers, seed, timeout, recovery, replicas, intervalMs, perturb, List.of());
    }

    /** The faults this simulation injects, steps resolved with its seed. */
    public List<Fault> faults() {
        List<Fault> out = new ArrayList<>();
        for (int i = 0; i < losses.size(); i++) {
            out.add(losses.get(i).resolve(seed, i));
        }
        return out;
    }

    /** When a planned loss lands. */
    public final class Loss {
        private final int peer;
        private final int afterSnapshots;

        private Loss(int peer, int afterSnapshots) {
            this.peer = peer;
            this.afterSnapshots = afterSnapshots;
        }

        /** Counts the steps from the peer's {@code k}-th snapshot (1 unless set; 0: from the start). */
        public Loss afterSnapshots(int k) {
            if (k < 0) {
                throw new IllegalArgumentException("SimulatedPeers.losePeer(" + peer + ").afterSnapshots(k): must be >= 0, was " + k);
            }
            return new Loss(peer, k);
        }

        /** The peer is lost as it sends its {@code step}-th data frame (counted from its snapshot). */
        public SimulatedPeers atStep(long step) {
            return atSeededStep(step, step);
        }

        /** As {@link #atStep}, the step drawn from the seed in {@code [low, high]}: the same seed, the same step. */
        public SimulatedPeers atSeededStep(long low, long high) {
            if (low < 1 || high < low) {
                throw new IllegalArgumentException("SimulatedPeers.losePeer(" + peer + "): steps start at 1 and high >= low, were "
                        + low + " and " + high);
            }
            List<PlannedLoss> all = new ArrayList<>(losses);
            all.add(new PlannedLoss(peer, afterSnapshots, low, high));
            return new SimulatedPeers(peers, seed, timeout, recovery, replicas, intervalMs, perturb, all);
        }
    }

    /** What the job of one simulated peer sees. */
    public final class Peer {
        private final World world;
        private final int rank;
        private final Cluster cluster;

        private Peer(World world, int rank, Cluster cluster) {
            this.world = world;
            this.rank = rank;
            this.cluster = cluster;
        }

        public int rank() {
            return rank;
        }

        public int peers() {
            return peers;
        }

        /** 0, then 1, 2, … for each restart of the world under checkpoints. */
        public int attempt() {
            return world.attempt;
        }

        public Cluster cluster() {
            return cluster;
        }

        /**
         * {@code base} as this peer runs it: in the simulated cluster, with the simulation's fault
         * tolerance (replication, or checkpoints in its directory) and its listener added.
         */
        public JobConfig config(JobConfig base) {
            Objects.requireNonNull(base, "Peer.config(base): base is null");
            JobConfig c = base.cluster(cluster).listener(e -> world.onEvent(e));
            return switch (recovery) {
                case NONE -> c;
                case REPLICATION -> c.replication(replicas, intervalMs);
                case CHECKPOINTS -> c.checkpoints(world.store(rank), intervalMs);
            };
        }

        /** The kit's exactly-once collecting sink; each row is {@code String.valueOf(item)}. */
        public <T> SinkFactory<T> sink() {
            return sink(String::valueOf);
        }

        /** The kit's exactly-once collecting sink; each row is {@code row.apply(item)}. */
        public <T> SinkFactory<T> sink(Function<? super T, String> row) {
            Objects.requireNonNull(row, "Peer.sink(row): row is null");
            return new SimulatedSink<>(row, rows -> world.closed(rank, rows));
        }
    }

    /**
     * What a run gave: the rows every surviving sink committed, sorted; the losses, takeovers
     * (under replication) and restarts (under checkpoints) in order; and a log of what happened.
     */
    public record Outcome(long seed, List<String> output, List<Lost> losses, List<String> takeovers, List<String> restarts,
                          List<String> log) {

        public Outcome {
            output = List.copyOf(output);
            losses = List.copyOf(losses);
            takeovers = List.copyOf(takeovers);
            restarts = List.copyOf(restarts);
            log = List.copyOf(log);
        }

        /**
         * Throws {@link AssertionError} unless {@link #output} holds exactly the rows of
         * {@code expected}, each as often (order aside), naming the missing and the extra or
         * duplicated rows and what happened in the run.
         */
        public void assertSameOutputAs(List<String> expected) {
            String diff = difference(expected, output);
            if (diff != null) {
                throw new AssertionError("the simulated run's output (seed " + seed + ") is not the expected one: " + diff
                        + "; what happened: " + (log.isEmpty() ? "no losses" : String.join("; ", log)));
            }
        }
    }

    /** Null when {@code actual} holds exactly the rows of {@code expected}, each as often; else what differs. */
    static String difference(List<String> expected, List<String> actual) {
        Map<String, Integer> count = new TreeMap<>();
        expected.forEach(r -> count.merge(r, 1, Integer::sum));
        actual.forEach(r -> count.merge(r, -1, Integer::sum));
        List<String> missing = new ArrayList<>();
        List<String> extra = new ArrayList<>();
        count.forEach((row, n) -> {
            for (int i = 0; i < Math.abs(n); i++) {
                (n > 0 ? missing : extra).add(row);
            }
        });
        if (missing.isEmpty() && extra.isEmpty()) {
            return null;
        }
        List<String> duplicated = extra.stream().filter(expected::contains).toList();
        return actual.size() + " rows against " + expected.size() + " expected; " + missing.size() + " missing " + firstFew(missing)
                + ", " + duplicated.size() + " duplicated " + firstFew(duplicated) + ", " + (extra.size() - duplicated.size())
                + " unexpected " + firstFew(extra.stream().filter(r -> !expected.contains(r)).toList());
    }

    private static String firstFew(List<String> rows) {
        return rows.size() <= 10 ? rows.toString() : rows.subList(0, 10) + " and " + (rows.size() - 10) + " more";
    }

    /** Runs this simulation without losses, then with them, and checks that both give the same output; returns the second. */
    public Outcome runAndCompare(PeerJob job) {
        Outcome clean = withoutFailures().run(job);
        Outcome faulty = run(job);
        faulty.assertSameOutputAs(clean.output());
        return faulty;
    }

    /**
     * Runs {@code job} on every simulated peer, injects the planned losses and recovers as set;
     * returns the output of the sinks of {@link Peer#sink} on the peers that survived (under
     * checkpoints: of the last attempt). Throws {@link AssertionError} when a peer that was not
     * lost fails, a planned loss never landed, or the run did not end in time — naming the peer,
     * the attempt and the fault.
     */
    public Outcome run(PeerJob job) {
        Objects.requireNonNull(job, "SimulatedPeers.run(job): job is null");
        List<Fault> faults = faults();
        if (!faults.isEmpty() && recovery == Recovery.NONE) {
            throw new IllegalStateException("SimulatedPeers: a peer is to be lost but the job has no fault tolerance; call "
                    + "replication(replicas, intervalMs) or checkpoints(intervalMs)");
        }
        if (recovery == Recovery.REPLICATION && faults.stream().map(Fault::peer).distinct().count() < faults.size()) {
            throw new IllegalStateException("SimulatedPeers: under replication a peer can be lost once, faults were " + faults);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        Path dir = null;
        List<Lost> lost = new ArrayList<>();
        List<String> takeovers = new ArrayList<>();
        List<String> restarts = new ArrayList<>();
        List<String> log = new ArrayList<>();
        try {
            if (recovery == Recovery.CHECKPOINTS) {
                dir = Files.createTempDirectory("air-simulated-checkpoints-");
            }
            for (int attempt = 0; ; attempt++) {
                List<Fault> here = recovery == Recovery.CHECKPOINTS ? (attempt < faults.size() ? List.of(faults.get(attempt)) : List.of())
                        : attempt == 0 ? faults : List.of();
                World world = new World(attempt, here, dir);
                List<String> rows = world.run(job, deadline);
                lost.addAll(world.lost);
                takeovers.addAll(world.takeovers);
                log.addAll(world.log);
                if (rows != null) {
                    Collections.sort(rows);
                    return new Outcome(seed, rows, lost, takeovers, restarts, log);
                }
                String restart = "attempt " + (attempt + 1) + " restarts every peer from the newest complete checkpoint";
                restarts.add(restart);
                log.add(restart);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("SimulatedPeers: could not make the checkpoint directory", e);
        } finally {
            if (dir != null) {
                deleteTree(dir);
            }
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("SimulatedPeers: could not delete " + dir, e);
        }
    }

    /**
     * What the scheduler does to the {@code n}-th frame (from 1) on the link (from, to, channel)
     * under {@code seed}: 0 hands it over at once, -1 yields the sending thread first, a positive
     * number pauses the sender that many microseconds first. A pure function: the same arguments,
     * the same answer, whatever the threads do. Heartbeats are never perturbed.
     */
    public static long perturbation(long seed, int from, int to, int channel, long n) {
        if (channel == Channels.HEARTBEAT) {
            return 0;
        }
        long h = mix(seed, from, to, channel, n);
        int kind = (int) Math.floorMod(h, 16L);
        if (kind == 0) {
            return 1 + Math.floorMod(h >>> 8, 300L); // up to 0.3 ms: frames of other links overtake this one
        }
        return kind <= 2 ? -1 : 0;
    }

    /** SplitMix64 over the arguments. */
    private static long mix(long seed, long a, long b, long c, long d) {
        long h = seed;
        for (long v : new long[] {a, b, c, d}) {
            h += 0x9E3779B97F4A7C15L + v;
            h = (h ^ (h >>> 30)) * 0xBF58476D1CE4E5B9L;
            h = (h ^ (h >>> 27)) * 0x94D049BB133111EBL;
            h ^= h >>> 31;
        }
        return h;
    }

    /** One attempt: a fresh in-JVM network, one platform thread per peer, the faults planned for it. */
    private final class World implements InJvmTransports.SendHook {
        final int attempt;
        final List<Fault> faults;
        final Path dir;
        final List<Transport> net;
        final AtomicLong frames = new AtomicLong();
        final AtomicLongArray dataFrames = new AtomicLongArray(peers);
        /** Per peer: its data frame count when its fault's snapshot came (-1: not yet). */
        final AtomicLongArray armedAt = new AtomicLongArray(peers);
        final AtomicLongArray replicated = new AtomicLongArray(peers);
        final AtomicLongArray written = new AtomicLongArray(peers);
        final ConcurrentHashMap<Long, AtomicLong> linkFrames = new ConcurrentHashMap<>();
        final Fault[] faultOf = new Fault[peers];
        final boolean[] crashed = new boolean[peers];
        final Map<Integer, List<String>> rows = new TreeMap<>();
        final List<Lost> lost = new CopyOnWriteArrayList<>();
        final List<String> takeovers = new CopyOnWriteArrayList<>();
        final List<String> log = new CopyOnWriteArrayList<>();
        final Map<Integer, CheckpointStore> stores = new ConcurrentHashMap<>();
        volatile boolean recoveringLogged;

        World(int attempt, List<Fault> faults, Path dir) {
            this.attempt = attempt;
            this.faults = faults;
            this.dir = dir;
            for (Fault f : faults) {
                faultOf[f.peer()] = f;
            }
            for (int p = 0; p < peers; p++) {
                armedAt.set(p, faultOf[p] != null && faultOf[p].afterSnapshots() == 0 ? 0 : -1);
            }
            this.net = InJvmTransports.network(peers, this);
        }

        @Override
        public void beforeSend(int from, int to, int channel) {
            long frame = frames.incrementAndGet();
            if (channel >= Channels.DATA_BASE) {
                long n = dataFrames.incrementAndGet(from);
                Fault f = faultOf[from];
                if (f != null) {
                    long base = armedAt.get(from);
                    if (base < 0 && snapshots(from) >= f.afterSnapshots()) {
                        armedAt.compareAndSet(from, -1, n - 1);
                        base = armedAt.get(from);
                    }
                    if (base >= 0 && n - base >= f.step()) {
                        lose(from, f, frame);
                        throw new IllegalStateException("peer " + from + " was lost (simulated: " + f + ")");
                    }
                }
            }
            if (perturb) {
                long n = linkFrames.computeIfAbsent(((long) from * peers + to) << 16 | channel, k -> new AtomicLong()).incrementAndGet();
                long p = perturbation(seed, from, to, channel, n);
                if (p < 0) {
                    Thread.yield();
                } else if (p > 0) {
                    LockSupport.parkNanos(p * 1_000); // a simulated slow hand-over, not a wait for anything
                }
            }
        }

        long snapshots(int peer) {
            if (recovery == Recovery.REPLICATION) {
                return replicated.get(peer);
            }
            long min = Long.MAX_VALUE;
            for (int p = 0; p < peers; p++) {
                min = Math.min(min, written.get(p));
            }
            return min;
        }

        void lose(int peer, Fault f, long frame) {
            synchronized (crashed) {
                if (crashed[peer]) {
                    return;
                }
                crashed[peer] = true;
            }
            Lost l = new Lost(f, attempt, frame);
            lost.add(l);
            log.add(l.toString());
            InJvmTransports.crash(net.get(peer), "simulated loss: " + f);
        }

        boolean isCrashed(int peer) {
            synchronized (crashed) {
                return crashed[peer];
            }
        }

        void onEvent(JobEvent e) {
            switch (e) {
                case JobEvent.StateReplicated r -> replicated.incrementAndGet(r.peer());
                case JobEvent.CheckpointWritten w -> written.incrementAndGet(w.peer());
                case JobEvent.Takeover t -> {
                    String s = "attempt " + attempt + ": peer " + t.host() + " took over peer " + t.dead() + "'s block(s) " + t.blocks()
                            + " from its snapshot " + t.checkpoint();
                    takeovers.add(s);
                    log.add(s);
                }
                case JobEvent.Recovering r -> {
                    if (!recoveringLogged) {
                        recoveringLogged = true;
                        log.add("attempt " + attempt + ": resumed from checkpoint " + r.checkpoint());
                    }
                }
                default -> { }
            }
        }

        CheckpointStore store(int peer) {
            return stores.computeIfAbsent(peer, p -> new LosableStore(Checkpoints.toDirectory(dir), p, this));
        }

        void closed(int peer, List<String> r) {
            synchronized (rows) {
                rows.computeIfAbsent(peer, p -> new ArrayList<>()).addAll(r);
            }
        }

        String what() {
            return "simulated peers (" + peers + ", seed " + seed + ", " + recovery.name().toLowerCase() + ", attempt " + attempt + ", "
                    + (faults.isEmpty() ? "no loss planned" : "planned: " + faults) + ")";
        }

        /** Runs every peer to its end; the combined output, or null when this attempt lost a peer and the world restarts. */
        List<String> run(PeerJob job, long deadline) {
            List<Thread> threads = new ArrayList<>();
            Throwable[] failures = new Throwable[peers];
            for (int r = 0; r < peers; r++) {
                int rank = r;
                Transport t = net.get(r);
                threads.add(Thread.ofPlatform().name("air-sim-" + attempt + "-peer-" + r).start(() -> {
                    try (Cluster c = Cluster.over(t, OPTIONS)) {
                        job.run(new Peer(this, rank, c));
                    } catch (Throwable e) {
                        failures[rank] = e;
                    }
                }));
            }
            int late = -1;
            for (int r = 0; r < peers; r++) {
                if (!join(threads.get(r), deadline) && late < 0) {
                    late = r;
                }
            }
            if (late >= 0) {
                for (Transport t : net) {
                    InJvmTransports.crash(t, "the simulation ran out of time");
                }
                threads.forEach(Thread::interrupt);
                for (Thread t : threads) {
                    join(t, System.nanoTime() + TimeUnit.SECONDS.toNanos(10));
                }
                net.forEach(Transport::close);
                throw new AssertionError(what() + ": peer " + late + " did not end within " + timeout + "; happened: " + log
                        + "; data frames sent per peer: " + dataFrames);
            }
            net.forEach(Transport::close);
            for (Fault f : faults) {
                if (!isCrashed(f.peer())) {
                    throw new AssertionError(what() + ": the job ended before the planned loss (" + f + "): peer " + f.peer() + " sent "
                            + dataFrames.get(f.peer()) + " data frame(s) in all, "
                            + (armedAt.get(f.peer()) < 0 ? "before its snapshot " + f.afterSnapshots() + " (it reached " + snapshots(f.peer())
                            + ")" : (dataFrames.get(f.peer()) - armedAt.get(f.peer())) + " after its snapshot " + f.afterSnapshots())
                            + "; lose it at an earlier step, or make the job longer (more input, a paced source) or the snapshot interval "
                            + "shorter", firstFailure(failures));
                }
            }
            for (int r = 0; r < peers; r++) {
                if (failures[r] != null && !isCrashed(r) && (recovery != Recovery.CHECKPOINTS || lost.isEmpty())) {
                    throw new AssertionError(what() + ": peer " + r + " failed" + (lost.isEmpty() ? "" : " after " + lost) + ": "
                            + failures[r], failures[r]);
                }
            }
            if (recovery == Recovery.CHECKPOINTS && !lost.isEmpty()) {
                return null;
            }
            List<String> out = new ArrayList<>();
            synchronized (rows) {
                rows.forEach((peer, r) -> {
                    if (!isCrashed(peer)) {
                        out.addAll(r);
                    }
                });
            }
            return out;
        }

        private Throwable firstFailure(Throwable[] failures) {
            for (Throwable t : failures) {
                if (t != null) {
                    return t;
                }
            }
            return null;
        }

        private static boolean join(Thread t, long deadline) {
            try {
                t.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while simulated peers ran", e);
            }
            return !t.isAlive();
        }
    }

    /** One peer's checkpoint store: refuses to write once its peer was lost, as a killed process writes nothing. */
    private static final class LosableStore implements CheckpointStore {
        private final CheckpointStore inner;
        private final int peer;
        private final World world;

        LosableStore(CheckpointStore inner, int peer, World world) {
            this.inner = inner;
            this.peer = peer;
            this.world = world;
        }

        @Override
        public void write(String job, long id, int p, int ps, Map<String, byte[]> parts) throws IOException {
            if (world.isCrashed(peer)) {
                throw new IOException("peer " + peer + " was lost (simulated): it writes no checkpoint");
            }
            inner.write(job, id, p, ps, parts);
        }

        @Override
        public Optional<Restored> newestComplete(String job, int p, int ps) throws IOException {
            return inner.newestComplete(job, p, ps);
        }

        @Override
        public void discardNewerThan(String job, long id, int p) throws IOException {
            inner.discardNewerThan(job, id, p);
        }

        @Override
        public List<String> jobs() throws IOException {
            return inner.jobs();
        }

        @Override
        public void discard(String job) throws IOException {
            inner.discard(job);
        }

        @Override
        public String describe() {
            return inner.describe();
        }
    }
}
