package air.launcher;

import air.runtime.JobEvent;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Runs a replicated job on a group of peers and strikes a random live peer at seeded moments
 * (rank 0 included), one run, no restarts: the next live peer takes each victim's share over. A
 * strike is a {@code kill -9}, or a {@code kill -STOP} for a while then {@code kill -CONT} (a long
 * GC pause, a VM stall): the others declare the paused peer lost and take its share over, and when
 * it runs again it must stop by itself, fenced ({@link ExitCodes#FENCED}), never writing beside its
 * successor; or a partition ({@link Fault#partition}): the victim's host is cut off the network
 * for a while, the victim runs on alone, and it too must stop fenced, with the same takeover by
 * the others; {@link Fault#together} victims at once test losses within one replication interval.
 * It decides only from the peers' {@link PeerEvent}s. The first strike waits until every peer
 * reported {@link JobEvent.Started} and a {@link JobEvent.StateReplicated} of its own block on its
 * next live peers; each further strike waits for the victims' {@link JobEvent.Takeover} and until
 * every survivor's newest replicated snapshot covers exactly the blocks it hosts now, held by its
 * next {@code replicas} live peers (with one replica two losses within one interval cannot be
 * survived: the job fails at once, saying so). It never strikes once a peer reported
 * {@link JobEvent.PartDone}.
 *
 * <p>Afterwards it runs the application's {@link OutputCheck} and prints {@code CHECK lost=..
 * dup=.. kills=.. recovery_p50_ms=.. takeover_p50_ms=.. ...}: recovery is from the kill to the
 * first {@link PeerEvent.RestoredOutput} of a sink instance in a taken-over block, takeover from
 * the kill to the takeover event. It fails (exit 1) when output was lost or duplicated, or when
 * fewer kills landed than asked, saying so.
 */
public final class ReplicaSupervisor {

    private static final long DAY_MS = 24L * 3600 * 1000;
    private static final long SLICE_MS = 20;

    /**
     * What to do.
     *
     * @param job            the job whose events count (null: any)
     * @param workersPerPeer the job's workers on each peer: sink instance {@code i} belongs to block {@code i / workersPerPeer}
     * @param waitMs         how long to wait for what a kill waits for before giving up on further kills
     */
    public record Options(int peers, String job, int replicas, int workersPerPeer, int kills, long killSeed, long killAfterMs,
                          long killSpreadMs, long waitMs, Fault fault) {

        public Options {
            if (peers < 2 || replicas < 1 || replicas >= peers || workersPerPeer < 1 || kills < 0 || kills * fault.together() > peers - 1
                    || killAfterMs < 0 || killSpreadMs < 1 || waitMs < 1) {
                throw new IllegalArgumentException("bad supervisor options: peers=" + peers + " replicas=" + replicas + " workersPerPeer="
                        + workersPerPeer + " kills=" + kills + " (" + fault.together() + " peer(s) each) killAfterMs=" + killAfterMs
                        + " killSpreadMs=" + killSpreadMs);
            }
        }

        /** Kills 300 ms + up to 1.5 s after the copies are ready; waits up to 2 minutes for them. */
        public static Options of(int peers, int replicas, int workersPerPeer, int kills, long killSeed) {
            return new Options(peers, null, replicas, workersPerPeer, kills, killSeed, 300, 1_500, 120_000, Fault.KILL);
        }

        public Options withJob(String name) {
            return new Options(peers, name, replicas, workersPerPeer, kills, killSeed, killAfterMs, killSpreadMs, waitMs, fault);
        }

        public Options withKillWindow(long afterMs, long spreadMs) {
            return new Options(peers, job, replicas, workersPerPeer, kills, killSeed, afterMs, spreadMs, waitMs, fault);
        }

        public Options withWaitMs(long ms) {
            return new Options(peers, job, replicas, workersPerPeer, kills, killSeed, killAfterMs, killSpreadMs, ms, fault);
        }

        public Options withFault(Fault f) {
            return new Options(peers, job, replicas, workersPerPeer, kills, killSeed, killAfterMs, killSpreadMs, waitMs, f);
        }
    }

    /**
     * What one strike does: {@code kill -9}; or {@code kill -STOP} for {@code pauseMs} then
     * {@code kill -CONT}; or a partition, the victim's host cut off the network for
     * {@code partitionMs} then connected again ({@link PeerGroup#cut}); to {@code together} peers.
     */
    public record Fault(long pauseMs, int together, long partitionMs) {

        public static final Fault KILL = new Fault(0, 1, 0);

        public Fault {
            if (pauseMs < 0 || together < 1 || partitionMs < 0 || pauseMs > 0 && partitionMs > 0) {
                throw new IllegalArgumentException("bad fault: pauseMs=" + pauseMs + " together=" + together + " partitionMs=" + partitionMs);
            }
        }

        /** A kill or a pause. */
        public Fault(long pauseMs, int together) {
            this(pauseMs, together, 0);
        }

        /** Pauses instead of killing: each victim is stopped for {@code ms}, then runs again (and must stop, fenced). */
        public static Fault pause(long ms) {
            if (ms < 1) {
                throw new IllegalArgumentException("a pause lasts at least 1 ms, was " + ms);
            }
            return new Fault(ms, 1, 0);
        }

        /**
         * Partitions instead of killing: each victim's host is cut off the network for {@code ms},
         * then connected again; the victim runs on alone, and must stop, fenced.
         */
        public static Fault partition(long ms) {
            if (ms < 1) {
                throw new IllegalArgumentException("a partition lasts at least 1 ms, was " + ms);
            }
            return new Fault(0, 1, ms);
        }

        /** Strikes {@code n} distinct live peers at once. */
        public Fault together(int n) {
            return new Fault(pauseMs, n, partitionMs);
        }

        public boolean pauses() {
            return pauseMs > 0;
        }

        public boolean partitions() {
            return partitionMs > 0;
        }

        /** Whether the victims live on (paused or cut off) and must stop by themselves, fenced. */
        boolean fences() {
            return pauses() || partitions();
        }

        /** How long a pause or partition lasts (0 for a kill). */
        long lastsMs() {
            return pauseMs + partitionMs;
        }

        /** "pause", "partition" or "kill". */
        String noun() {
            return pauses() ? "pause" : partitions() ? "partition" : "kill";
        }
    }

    /** What the peers reported, and who hosts which blocks now. */
    private static final class Watch implements Consumer<PeerEvent> {
        private final Options options;
        private final Set<Integer> started = new HashSet<>();
        private final List<JobEvent.Takeover> takeovers = new ArrayList<>();
        /** Per peer, the blocks its newest replicated snapshot covers, and the peers holding it. */
        private final Map<Integer, Set<Integer>> covered = new HashMap<>();
        private final Map<Integer, List<Integer>> holders = new HashMap<>();
        private final List<PeerEvent.RestoredOutput> restored = new ArrayList<>();
        private boolean partDone;

        Watch(Options options) {
            this.options = options;
        }

        private boolean ours(JobEvent e) {
            return options.job() == null || options.job().equals(e.job());
        }

        @Override
        public synchronized void accept(PeerEvent event) {
            switch (event) {
                case PeerEvent.Job(JobEvent.Started s) when ours(s) -> started.add(s.peer());
                case PeerEvent.Job(JobEvent.Takeover t) when ours(t) -> takeovers.add(t);
                case PeerEvent.Job(JobEvent.StateReplicated r) when ours(r) -> {
                    covered.put(r.peer(), new HashSet<>(r.blocks()));
                    holders.put(r.peer(), r.replicas());
                }
                case PeerEvent.Job(JobEvent.PartDone d) when ours(d) -> partDone = true;
                case PeerEvent.RestoredOutput r -> restored.add(r);
                default -> {
                    return;
                }
            }
            notifyAll();
        }

        /** Waits until {@code test} holds; false when a live peer exited, a part finished or the wait ran out. */
        synchronized boolean await(PeerGroup group, Set<Integer> live, BooleanSupplier test) throws InterruptedException {
            long deadline = System.currentTimeMillis() + options.waitMs();
            while (!test.getAsBoolean()) {
                if (partDone || System.currentTimeMillis() > deadline || live.stream().anyMatch(p -> !group.isAlive(p))) {
                    return false;
                }
                wait(SLICE_MS); // woken by each event; the timeout notices exits and the clock
            }
            return !partDone;
        }

        /** The takeover of {@code dead}'s share, or null. */
        synchronized JobEvent.Takeover takeoverOf(int dead) {
            return takeovers.stream().filter(t -> t.dead() == dead).findFirst().orElse(null);
        }

        synchronized int startedPeers() {
            return started.size();
        }

        synchronized List<PeerEvent.RestoredOutput> restored() {
            return List.copyOf(restored);
        }

        /**
         * Whether every live peer's newest replicated snapshot covers exactly the blocks it hosts and
         * is held by its next {@code replicas} live peers: the copies a further loss needs are there.
         */
        synchronized boolean allReplicated(Set<Integer> live, Map<Integer, Set<Integer>> blocksOn) {
            int peers = options.peers();
            for (int p : live) {
                List<Integer> next = new ArrayList<>();
                for (int k = 1; k < peers && next.size() < options.replicas(); k++) {
                    if (live.contains((p + k) % peers)) {
                        next.add((p + k) % peers);
                    }
                }
                if (!blocksOn.get(p).equals(covered.get(p)) || !next.equals(holders.get(p))) {
                    return false;
                }
            }
            return true;
        }
    }

    private ReplicaSupervisor() {
    }

    /** Runs the job once with the kills; the exit code (0 when all went well). */
    public static int run(PeerStarter starter, Options o, OutputCheck check, Consumer<String> out) throws IOException, InterruptedException {
        SplittableRandom random = new SplittableRandom(o.killSeed());
        Watch watch = new Watch(o);
        List<Long> kills = new ArrayList<>();
        List<Long> takeoverMs = new ArrayList<>();
        List<Set<Integer>> victimBlocks = new ArrayList<>();
        Set<Integer> live = new HashSet<>();
        Set<Integer> paused = new HashSet<>(); // paused or cut off: each must stop fenced
        List<Thread> restorers = new ArrayList<>();
        Map<Integer, Set<Integer>> blocksOn = new HashMap<>();
        for (int p = 0; p < o.peers(); p++) {
            live.add(p);
            blocksOn.put(p, new HashSet<>(Set.of(p)));
        }
        int[] codes;
        try (PeerGroup group = starter.start(DAY_MS, Map.of(), watch)) {
            // a peer killed before its first snapshot is replicated cannot be taken over: wait for one from each
            boolean ok = watch.await(group, live, () -> watch.startedPeers() == o.peers() && watch.allReplicated(live, blocksOn));
            long ready = System.currentTimeMillis();
            while (ok && kills.size() < o.kills()) {
                long at = ready + o.killAfterMs() + random.nextLong(o.killSpreadMs());
                ok = watch.await(group, live, () -> System.currentTimeMillis() >= at);
                if (!ok) {
                    break;
                }
                List<Integer> candidates = new ArrayList<>(live.stream().sorted().toList());
                List<Integer> victims = new ArrayList<>();
                while (victims.size() < o.fault().together()) {
                    victims.add(candidates.remove(random.nextInt(candidates.size())));
                }
                long killedAt = System.currentTimeMillis();
                kills.add(killedAt);
                Set<Integer> struck = new HashSet<>();
                for (int victim : victims) {
                    strike(group, o, victim, kills.size(), out);
                    live.remove(victim);
                    struck.addAll(blocksOn.get(victim));
                }
                if (o.fault().fences()) {
                    paused.addAll(victims);
                    restorers.add(restoreLater(group, victims, o.fault().lastsMs(), o.fault().partitions(), out));
                }
                victimBlocks.add(Set.copyOf(struck));
                ok = watch.await(group, live, () -> victims.stream().allMatch(v -> watch.takeoverOf(v) != null));
                JobEvent.Takeover t = watch.takeoverOf(victims.get(0));
                takeoverMs.add(t == null ? -1 : t.atMs() - killedAt);
                if (!ok || victims.stream().anyMatch(v -> watch.takeoverOf(v) == null)) {
                    break;
                }
                for (int victim : victims) {
                    blocksOn.get(watch.takeoverOf(victim).host()).addAll(blocksOn.remove(victim));
                }
                if (kills.size() == o.kills()) {
                    break; // no further kill needs fresh copies
                }
                // every survivor whose blocks or replicas changed reports its next snapshot replicated
                ok = watch.await(group, live, () -> watch.allReplicated(live, blocksOn));
                ready = System.currentTimeMillis();
            }
            codes = group.await(DAY_MS);
            for (Thread t : restorers) {
                t.join(); // every pause or partition ended (at most its own length from now) before the group closes
            }
        }
        for (int p : live) {
            if (codes[p] == ExitCodes.FENCED && watch.takeoverOf(p) != null) {
                RestartSupervisor.say(out, "[launcher] peer %d was declared lost and stopped fenced; peer %d took its share over from "
                        + "checkpoint %d", p, watch.takeoverOf(p).host(), watch.takeoverOf(p).checkpoint());
                continue;
            }
            if (codes[p] != 0) {
                JobEvent.Takeover outside = watch.takeoverOf(p);
                if (outside != null && (codes[p] == 137 || codes[p] == 143)) { // SIGKILL (an operator, the OOM killer) or SIGTERM
                    // killed by a signal the launcher did not send, and survived: the output check decides
                    RestartSupervisor.say(out, "[launcher] peer %d died outside the launcher (status %d); peer %d took its share over from "
                            + "checkpoint %d", p, codes[p], outside.host(), outside.checkpoint());
                    continue;
                }
                RestartSupervisor.say(out, "[launcher] peer %d exited with status %d", p, codes[p]);
                return ExitCodes.ofPeer(codes[p]);
            }
        }
        for (int p : paused) {
            if (codes[p] != ExitCodes.FENCED) {
                RestartSupervisor.say(out, "[launcher] peer %d was %s and declared lost but exited with status %d, not fenced (%d)", p,
                        o.fault().partitions() ? "cut off" : "paused", codes[p], ExitCodes.FENCED);
                return ExitCodes.CHECK_FAILED;
            }
            JobEvent.Takeover t = watch.takeoverOf(p);
            if (t == null) {
                RestartSupervisor.say(out, "[launcher] peer %d stopped fenced after its %s, but no peer took its share over", p,
                        o.fault().noun());
                return ExitCodes.JOB_FAILED;
            }
            RestartSupervisor.say(out, "[launcher] peer %d stopped fenced after its %s; peer %d runs its share", p, o.fault().noun(),
                    t.host());
        }
        boolean exact = report(o, kills, takeoverMs, victimBlocks, watch.restored(), check, out);
        if (kills.size() < o.kills()) {
            RestartSupervisor.say(out, "[launcher] only %d of %d kills landed before the job ended: make the run longer", kills.size(),
                    o.kills());
            return 1;
        }
        return exact ? 0 : 1;
    }

    private static void strike(PeerGroup group, Options o, int victim, int number, Consumer<String> out) {
        if (o.fault().pauses()) {
            group.pause(victim);
            RestartSupervisor.say(out, "[launcher] kill -STOP peer %d for %d ms (pause %d of %d)", victim, o.fault().pauseMs(), number,
                    o.kills());
        } else if (o.fault().partitions()) {
            group.cut(victim);
            RestartSupervisor.say(out, "[launcher] cut peer %d's host off the network for %d ms (partition %d of %d)", victim,
                    o.fault().partitionMs(), number, o.kills());
        } else {
            group.kill(victim);
            RestartSupervisor.say(out, "[launcher] kill -9 peer %d (kill %d of %d)", victim, number, o.kills());
        }
    }

    /**
     * Lets paused peers run again (or connects cut-off peers' hosts again, {@code partition}) after
     * {@code ms}, on a timer thread of its own, which it returns: joining it waits out the fault.
     */
    static Thread restoreLater(PeerGroup group, List<Integer> victims, long ms, boolean partition, Consumer<String> out) {
        return Thread.ofPlatform().daemon().name(partition ? "air-launcher-heal" : "air-launcher-resume").start(() -> {
            long until = System.nanoTime() + ms * 1_000_000L;
            for (long left = ms * 1_000_000L; left > 0; left = until - System.nanoTime()) {
                LockSupport.parkNanos(left); // the fault itself: nothing waits on this thread but the end of the run
            }
            for (int v : victims) {
                if (partition) {
                    group.heal(v); // whether or not the peer still runs: its host is whole again
                    RestartSupervisor.say(out, "[launcher] connected peer %d's host again%s", v, group.isAlive(v) ? "" : " (the peer has exited)");
                } else if (group.isAlive(v)) {
                    group.resume(v);
                    RestartSupervisor.say(out, "[launcher] kill -CONT peer %d", v);
                }
            }
        });
    }

    /** Prints a line per kill and the CHECK line; true when nothing was lost or duplicated. */
    private static boolean report(Options options, List<Long> kills, List<Long> takeoverMs, List<Set<Integer>> victimBlocks,
                                  List<PeerEvent.RestoredOutput> restored, OutputCheck check, Consumer<String> out) throws IOException {
        long[] recovery = new long[kills.size()];
        for (int k = 0; k < kills.size(); k++) {
            long killedAt = kills.get(k);
            long until = k + 1 < kills.size() ? kills.get(k + 1) : Long.MAX_VALUE;
            Set<Integer> blocks = victimBlocks.get(k);
            long first = restored.stream().filter(r -> r.atMs() >= killedAt && r.atMs() < until
                    && blocks.contains(r.instance() / options.workersPerPeer())).mapToLong(PeerEvent.RestoredOutput::atMs).min().orElse(-1);
            recovery[k] = first < 0 ? -1 : first - killedAt;
            RestartSupervisor.say(out, "[launcher] kill %d: takeover_ms=%d first_output_ms=%d", k + 1, takeoverMs.get(k), recovery[k]);
        }
        Quantiles known = Quantiles.of(recovery);
        Quantiles takeovers = Quantiles.of(takeoverMs.stream().mapToLong(Long::longValue).toArray());
        OutputCheck.Outcome o = check.check();
        RestartSupervisor.say(out, "CHECK lost=%d dup=%d kills=%d recovery_p50_ms=%s recovery_p95_ms=%s recovery_max_ms=%s takeover_p50_ms=%s"
                        + " takeover_p95_ms=%s takeover_max_ms=%s rows=%d",
                o.lost(), o.duplicated(), kills.size(), known.rank(0.50), known.rank(0.95), known.max(),
                takeovers.rank(0.50), takeovers.rank(0.95), takeovers.max(), o.rows());
        return o.exact();
    }
}
