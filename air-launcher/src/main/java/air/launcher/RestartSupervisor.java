package air.launcher;

import air.runtime.JobEvent;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Runs a checkpointed job on a group of peers and, when a peer dies (or, asked to, is
 * {@code kill -9}ed at a seeded random moment), restarts every peer, which resume from the newest
 * complete checkpoint. It decides only from the peers' {@link PeerEvent}s: a kill lands a while
 * after every peer reported {@link JobEvent.Started}; recovery is timed from the kill to the first
 * {@link PeerEvent.FirstOutput} of the restarted peers, {@code running_again} to the last
 * restarted peer's {@link JobEvent.RunningAgain}. Each attempt's peers get {@code AIR_ATTEMPT}
 * (1, 2, ...).
 *
 * <p>After a run with kills it runs the application's {@link OutputCheck} and prints
 * {@code CHECK lost=.. dup=.. kills=.. recovery_p50_ms=.. ...}; it fails (exit 1) when output was
 * lost or duplicated, or when fewer kills landed than asked (the job ended first), saying so.
 */
public final class RestartSupervisor {

    /** The environment variable telling each peer which attempt it belongs to (1 for the first). */
    public static final String ATTEMPT = "AIR_ATTEMPT";
    private static final long DAY_MS = 24L * 3600 * 1000;

    /**
     * What to do.
     *
     * @param job            the job whose events count (null: any)
     * @param finalExitCodes peer exit codes a restart would not help (a wrong result, bad arguments): the run ends with them
     * @param checkpoints    where the peers' checkpoints are, for the restart message
     * @param killAfterMs    a kill lands this long after every peer started, plus a seeded random part of {@code killSpreadMs}
     */
    public record Options(int peers, String job, int kills, long killSeed, int maxRestarts, Set<Integer> finalExitCodes,
                          String checkpoints, long killAfterMs, long killSpreadMs, boolean killAfterACheckpoint, long pauseMs,
                          long partitionMs) {

        public Options {
            if (peers < 1 || kills < 0 || maxRestarts < 0 || killAfterMs < 0 || killSpreadMs < 1 || pauseMs < 0 || partitionMs < 0
                    || pauseMs > 0 && partitionMs > 0) {
                throw new IllegalArgumentException("bad supervisor options: peers=" + peers + " kills=" + kills + " maxRestarts="
                        + maxRestarts + " killAfterMs=" + killAfterMs + " killSpreadMs=" + killSpreadMs + " pauseMs=" + pauseMs
                        + " partitionMs=" + partitionMs);
            }
            finalExitCodes = Set.copyOf(finalExitCodes);
            Objects.requireNonNull(checkpoints, "checkpoints");
        }

        /** {@code kills} kills, at most {@code kills + 3} restarts, kills 300 ms + up to 2.5 s after the start. */
        public static Options of(int peers, int kills, long killSeed, String checkpoints) {
            return new Options(peers, null, kills, killSeed, kills + 3, Set.of(), checkpoints, 300, 2_500, false, 0, 0);
        }

        public Options withJob(String name) {
            return new Options(peers, name, kills, killSeed, maxRestarts, finalExitCodes, checkpoints, killAfterMs, killSpreadMs,
                    killAfterACheckpoint, pauseMs, partitionMs);
        }

        public Options withMaxRestarts(int n) {
            return new Options(peers, job, kills, killSeed, n, finalExitCodes, checkpoints, killAfterMs, killSpreadMs, killAfterACheckpoint,
                    pauseMs, partitionMs);
        }

        public Options withFinalExitCodes(Set<Integer> codes) {
            return new Options(peers, job, kills, killSeed, maxRestarts, codes, checkpoints, killAfterMs, killSpreadMs, killAfterACheckpoint,
                    pauseMs, partitionMs);
        }

        /**
         * Each kill waits until every peer of the attempt wrote a checkpoint, then the kill window:
         * so that every kill tests a recovery from a checkpoint, however slowly the first one is
         * written (a loaded machine, a large state), instead of a restart from scratch.
         */
        public Options withKillAfterACheckpoint() {
            return new Options(peers, job, kills, killSeed, maxRestarts, finalExitCodes, checkpoints, killAfterMs, killSpreadMs, true, pauseMs,
                    partitionMs);
        }

        public Options withKillWindow(long afterMs, long spreadMs) {
            return new Options(peers, job, kills, killSeed, maxRestarts, finalExitCodes, checkpoints, afterMs, spreadMs, killAfterACheckpoint,
                    pauseMs, partitionMs);
        }

        /**
         * Each strike is a {@code kill -STOP} for {@code ms} then {@code kill -CONT} instead of a kill:
         * the others fail the attempt, and the paused peer, running again, must stop fenced
         * ({@link ExitCodes#FENCED}) before the restart; the attempt's peers get the pause plus 15 s to end.
         */
        public Options withPauses(long ms) {
            return new Options(peers, job, kills, killSeed, maxRestarts, finalExitCodes, checkpoints, killAfterMs, killSpreadMs,
                    killAfterACheckpoint, ms, 0);
        }

        /**
         * Each strike is a partition instead of a kill: the victim's host is cut off the network for
         * {@code ms}, then connected again ({@link PeerGroup#cut}); the others fail the attempt, and
         * the victim, alone, must stop fenced ({@link ExitCodes#FENCED}) before the restart, which
         * waits until its host is connected again; the attempt's peers get the partition plus 15 s to end.
         */
        public Options withPartitions(long ms) {
            return new Options(peers, job, kills, killSeed, maxRestarts, finalExitCodes, checkpoints, killAfterMs, killSpreadMs,
                    killAfterACheckpoint, 0, ms);
        }

        /** How long a pause or partition lasts (0: strikes are kills). */
        long faultMs() {
            return pauseMs + partitionMs;
        }
    }

    /** What one attempt's peers reported. */
    private static final class Attempt implements Consumer<PeerEvent> {
        private final Options options;
        private final Set<Integer> started = new HashSet<>();
        private final Set<Integer> checkpointed = new HashSet<>();
        private final Map<Integer, Long> runningAgain = new HashMap<>();
        private long firstOutputMs = Long.MAX_VALUE;

        Attempt(Options options) {
            this.options = options;
        }

        private boolean ours(JobEvent e) {
            return options.job() == null || options.job().equals(e.job());
        }

        @Override
        public synchronized void accept(PeerEvent event) {
            switch (event) {
                case PeerEvent.Job(JobEvent.Started s) when ours(s) -> started.add(s.peer());
                case PeerEvent.Job(JobEvent.CheckpointWritten c) when ours(c) -> checkpointed.add(c.peer());
                case PeerEvent.Job(JobEvent.RunningAgain r) when ours(r) && r.share() == r.peer() -> runningAgain.putIfAbsent(r.peer(), r.atMs());
                case PeerEvent.FirstOutput f -> firstOutputMs = Math.min(firstOutputMs, f.atMs());
                default -> {
                    return;
                }
            }
            notifyAll();
        }

        /** Waits until every peer runs the job, or one exits first; true when all run. */
        synchronized boolean awaitAllStarted(PeerGroup group) throws InterruptedException {
            while (started.size() < options.peers()) {
                if (group.anyExitWithin(0)) {
                    return false;
                }
                wait(50); // woken by each event; the timeout notices a peer that exits without one
            }
            return true;
        }

        /** Waits until every peer wrote a checkpoint in this attempt, or one exits first; true when all did. */
        synchronized boolean awaitACheckpointEverywhere(PeerGroup group) throws InterruptedException {
            while (checkpointed.size() < options.peers()) {
                if (group.anyExitWithin(0)) {
                    return false;
                }
                wait(50); // woken by each event; the timeout notices a peer that exits without one
            }
            return true;
        }

        /** When the last peer was running again after its restore, or -1 when not every peer said so. */
        synchronized long allRunningAgainMs() {
            return runningAgain.size() < options.peers() ? -1 : runningAgain.values().stream().mapToLong(Long::longValue).max().orElse(-1);
        }

        synchronized long firstOutputMs() {
            return firstOutputMs == Long.MAX_VALUE ? -1 : firstOutputMs;
        }
    }

    private RestartSupervisor() {
    }

    /** Runs until the job ends well, fails for good, or runs out of restarts; the exit code (0 when all went well). */
    public static int run(PeerStarter starter, Options o, OutputCheck check, Consumer<String> out) throws IOException, InterruptedException {
        SplittableRandom random = new SplittableRandom(o.killSeed());
        List<Long> kills = new ArrayList<>();
        List<Integer> killAttempt = new ArrayList<>(); // the attempt (0-based) each kill ended
        List<Attempt> attempts = new ArrayList<>();
        int restarts = 0;
        while (true) {
            Attempt attempt = new Attempt(o);
            attempts.add(attempt);
            int[] codes;
            // once one peer is gone the others cannot finish this attempt: stop them at once and restart sooner
            int victim = -1;
            // a paused peer must run again to see that it was fenced; a cut-off one notices it alone
            long grace = o.faultMs() > 0 ? o.faultMs() + 15_000 : 0;
            Thread restorer = null;
            try (PeerGroup group = starter.start(grace, Map.of(ATTEMPT, Integer.toString(attempts.size())), attempt)) {
                if (kills.size() < o.kills() && attempt.awaitAllStarted(group)
                        && (!o.killAfterACheckpoint() || attempt.awaitACheckpointEverywhere(group))
                        && !group.anyExitWithin(o.killAfterMs() + random.nextLong(o.killSpreadMs()))) {
                    victim = random.nextInt(o.peers());
                    kills.add(System.currentTimeMillis());
                    killAttempt.add(attempts.size() - 1);
                    if (o.pauseMs() > 0) {
                        group.pause(victim);
                        say(out, "[launcher] kill -STOP peer %d for %d ms (pause %d of %d)", victim, o.pauseMs(), kills.size(), o.kills());
                        restorer = ReplicaSupervisor.restoreLater(group, List.of(victim), o.pauseMs(), false, out);
                    } else if (o.partitionMs() > 0) {
                        group.cut(victim);
                        say(out, "[launcher] cut peer %d's host off the network for %d ms (partition %d of %d)", victim, o.partitionMs(),
                                kills.size(), o.kills());
                        restorer = ReplicaSupervisor.restoreLater(group, List.of(victim), o.partitionMs(), true, out);
                    } else {
                        group.kill(victim);
                        say(out, "[launcher] kill -9 peer %d (kill %d of %d)", victim, kills.size(), o.kills());
                    }
                }
                codes = group.await(DAY_MS);
                if (restorer != null) {
                    restorer.join(); // the next attempt starts on whole hosts, after the fault's full length
                }
            }
            if (o.faultMs() > 0 && victim >= 0) {
                String noun = o.pauseMs() > 0 ? "pause" : "partition";
                if (codes[victim] != ExitCodes.FENCED) {
                    say(out, "[launcher] peer %d was %s but exited with status %d, not fenced (%d)", victim,
                            o.pauseMs() > 0 ? "paused" : "cut off", codes[victim], ExitCodes.FENCED);
                    return ExitCodes.CHECK_FAILED;
                }
                say(out, "[launcher] peer %d stopped fenced after its %s", victim, noun);
            }
            long endedMs = System.currentTimeMillis();
            int worst = 0;
            for (int c : codes) {
                if (c != 0) {
                    worst = c;
                    break;
                }
            }
            if (worst == 0) {
                break;
            }
            if (o.finalExitCodes().contains(worst)) {
                return ExitCodes.ofPeer(worst); // a restart would not help
            }
            if (restarts == o.maxRestarts()) {
                say(out, "[launcher] giving up after %d restarts", restarts);
                return ExitCodes.JOB_FAILED;
            }
            restarts++;
            say(out, "[launcher] restart %d: every peer resumes from the newest checkpoint in %s%s", restarts, o.checkpoints(),
                    kills.isEmpty() ? "" : " (the attempt ended " + (endedMs - kills.get(kills.size() - 1)) + " ms after the last kill)");
        }
        if (o.kills() == 0) {
            return ExitCodes.OK;
        }
        boolean exact = report(kills, killAttempt, attempts, check, out);
        if (kills.size() < o.kills()) {
            say(out, "[launcher] only %d of %d kills landed before the job ended: make the run longer", kills.size(), o.kills());
            return ExitCodes.CHECK_FAILED;
        }
        return exact ? ExitCodes.OK : ExitCodes.CHECK_FAILED;
    }

    /** Prints the CHECK line; true when nothing was lost or duplicated. */
    private static boolean report(List<Long> kills, List<Integer> killAttempt, List<Attempt> attempts, OutputCheck check,
                                  Consumer<String> out) throws IOException {
        long[] recovery = new long[kills.size()];
        long[] running = new long[kills.size()];
        for (int k = 0; k < kills.size(); k++) {
            int next = killAttempt.get(k) + 1; // the attempt that resumed after kill k
            long first = next < attempts.size() ? attempts.get(next).firstOutputMs() : -1;
            long again = next < attempts.size() ? attempts.get(next).allRunningAgainMs() : -1;
            recovery[k] = first < 0 ? -1 : first - kills.get(k);
            running[k] = again < 0 ? -1 : again - kills.get(k);
            say(out, "[launcher] kill %d: first_output_ms=%d running_again_ms=%d", k + 1, recovery[k], running[k]);
        }
        Quantiles known = Quantiles.of(recovery);
        Quantiles runningKnown = Quantiles.of(running);
        OutputCheck.Outcome o = check.check();
        say(out, "CHECK lost=%d dup=%d kills=%d recovery_p50_ms=%s recovery_p95_ms=%s recovery_max_ms=%s running_again_p50_ms=%s"
                        + " running_again_p95_ms=%s rows=%d",
                o.lost(), o.duplicated(), kills.size(), known.rank(0.50), known.rank(0.95), known.max(),
                runningKnown.rank(0.50), runningKnown.rank(0.95), o.rows());
        return o.exact();
    }

    static void say(Consumer<String> out, String format, Object... args) {
        out.accept(String.format(Locale.ROOT, format, args));
    }
}
