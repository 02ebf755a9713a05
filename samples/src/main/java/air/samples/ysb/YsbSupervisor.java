package air.samples.ysb;

import air.launcher.LocalCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The local launcher with checkpoints: runs the peer JVMs, and when a peer dies (or, asked with
 * {@code --kill N}, is {@code kill -9}ed at a seeded random moment) restarts every peer, which
 * resume from the newest complete checkpoint. After a run with kills it checks the output against a
 * plain loop and prints {@code CHECK lost=.. dup=.. kills=.. recovery_p50_ms=..}: recovery is from
 * the kill to the first result row the restarted peers emit; {@code running_again} is from the kill
 * to every restarted peer back at the checkpoint and running.
 */
final class YsbSupervisor {

    private static final long DAY_MS = 24L * 3600 * 1000;
    /** A kill lands this long after every peer's job started, plus up to {@link #KILL_SPREAD_MS}. */
    private static final long KILL_AFTER_MS = 300;
    private static final long KILL_SPREAD_MS = 2_500;
    /** The log line of a job that has agreed its plan with every peer and runs. */
    private static final String JOB_STARTING = "job 'ysb-mem' starting";
    /** The log line of a peer whose tasklets are all back at the restored checkpoint. */
    private static final String RUNNING_AGAIN = "job 'ysb-mem' RUNNING again on peer";

    /** Passes the peers' output on and notes when every peer's job has started. */
    private static final class StartWatch implements java.util.function.Consumer<String> {
        private final java.util.function.Consumer<String> out;
        private final java.util.Set<String> startedPeers = java.util.concurrent.ConcurrentHashMap.newKeySet();
        private final java.util.concurrent.CountDownLatch all;
        private final java.util.Set<String> restoredPeers = java.util.concurrent.ConcurrentHashMap.newKeySet();
        private final int peers;
        /** Wall-clock time at which the last peer of this attempt was running again after a restore, or 0. */
        private volatile long allRestoredMs;

        StartWatch(int peers, java.util.function.Consumer<String> out) {
            this.out = out;
            this.all = new java.util.concurrent.CountDownLatch(peers);
            this.peers = peers;
        }

        @Override
        public void accept(String line) {
            out.accept(line);
            if (line.startsWith("[peer ") && line.contains(JOB_STARTING) && startedPeers.add(line.substring(0, line.indexOf(']')))) {
                all.countDown();
            }
            if (line.startsWith("[peer ") && line.contains(RUNNING_AGAIN) && restoredPeers.add(line.substring(0, line.indexOf(']')))
                    && restoredPeers.size() == peers) {
                allRestoredMs = System.currentTimeMillis();
            }
        }

        /** Waits until every peer runs the job, or one exits first; true when all run. */
        boolean await(LocalCluster cluster) throws InterruptedException {
            while (!all.await(100, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                if (cluster.anyExitWithin(0)) {
                    return false;
                }
            }
            return true;
        }
    }

    private YsbSupervisor() {
    }

    static int run(YsbArgs args, LocalCluster.Spec spec) throws IOException, InterruptedException {
        YsbFaults faults = args.faults();
        SplittableRandom random = new SplittableRandom(faults.killSeed());
        Path marks = Files.createDirectories(faults.checkpoints().resolve("first-output"));
        List<Long> kills = new ArrayList<>();
        List<Long> restoredAt = new ArrayList<>();
        int restarts = 0;
        int attempt = 0;
        while (true) {
            attempt++;
            StartWatch started = new StartWatch(args.peers(), spec.output());
            // once one peer is gone the others cannot finish this attempt: stop them at once and restart sooner
            LocalCluster.Spec s = spec.withOutput(started).withFailureGraceMs(0)
                    .withEnvironment(Map.of(FirstOutput.DIR, marks.toString(), FirstOutput.ATTEMPT, Integer.toString(attempt)));
            int[] codes;
            try (LocalCluster cluster = LocalCluster.start(s)) {
                if (kills.size() < faults.kills() && started.await(cluster)
                        && !cluster.anyExitWithin(KILL_AFTER_MS + random.nextLong(KILL_SPREAD_MS))) {
                    int victim = random.nextInt(args.peers());
                    kills.add(System.currentTimeMillis());
                    cluster.kill(victim);
                    say(spec, "[launcher] kill -9 peer %d (kill %d of %d)", victim, kills.size(), faults.kills());
                }
                codes = cluster.await(DAY_MS);
            }
            long endedMs = System.currentTimeMillis();
            if (attempt > 1) {
                restoredAt.add(started.allRestoredMs);
            }
            int worst = Arrays.stream(codes).filter(c -> c != 0).findFirst().orElse(0);
            if (worst == 0) {
                break;
            }
            if (worst == 1 || worst == 2) {
                return worst; // a wrong result or bad arguments: a restart would not help
            }
            if (restarts == faults.maxRestarts()) {
                say(spec, "[launcher] giving up after %d restarts", restarts);
                return 3;
            }
            restarts++;
            say(spec, "[launcher] restart %d: every peer resumes from the newest checkpoint in %s%s", restarts, faults.checkpoints(),
                    kills.isEmpty() ? "" : " (the attempt ended " + (endedMs - kills.get(kills.size() - 1)) + " ms after the last kill)");
        }
        return faults.kills() > 0 && !report(args, kills, restoredAt, marks, spec) ? 1 : 0;
    }

    /** Prints the checker line; true when nothing was lost or duplicated. */
    private static boolean report(YsbArgs args, List<Long> kills, List<Long> restoredAt, Path marks, LocalCluster.Spec spec)
            throws IOException {
        long[] running = new long[Math.min(kills.size(), restoredAt.size())];
        for (int k = 0; k < running.length; k++) {
            running[k] = restoredAt.get(k) == 0 ? -1 : restoredAt.get(k) - kills.get(k);
        }
        long[] runningKnown = Arrays.stream(running).filter(r -> r >= 0).sorted().toArray();
        long[] recovery = new long[kills.size()];
        for (int k = 0; k < kills.size(); k++) {
            long first = Long.MAX_VALUE;
            for (int peer = 0; peer < args.peers(); peer++) {
                Path mark = marks.resolve(FirstOutput.fileName(k + 2, peer)); // kill k ended attempt k + 1
                if (Files.exists(mark)) {
                    first = Math.min(first, Long.parseLong(Files.readString(mark).trim()));
                }
            }
            recovery[k] = first == Long.MAX_VALUE ? -1 : first - kills.get(k);
        }
        long[] known = Arrays.stream(recovery).filter(r -> r >= 0).sorted().toArray();
        YsbOutputCheck.Outcome o = YsbOutputCheck.check(args.out(), args);
        say(spec, "CHECK lost=%d dup=%d kills=%d recovery_p50_ms=%s recovery_p95_ms=%s recovery_max_ms=%s running_again_p50_ms=%s"
                        + " running_again_p95_ms=%s rows=%d",
                o.lost(), o.duplicated(), kills.size(), rank(known, 0.50), rank(known, 0.95),
                known.length == 0 ? "n/a" : Long.toString(known[known.length - 1]), rank(runningKnown, 0.50), rank(runningKnown, 0.95),
                o.rows());
        return o.lost() == 0 && o.duplicated() == 0;
    }

    static void say(LocalCluster.Spec spec, String format, Object... args) {
        spec.output().accept(String.format(Locale.ROOT, format, args));
    }

    /** The {@code p} quantile (nearest rank) of sorted values, or n/a for none. */
    static String rank(long[] sorted, double p) {
        if (sorted.length == 0) {
            return "n/a";
        }
        int r = (int) Math.ceil(p * sorted.length);
        return Long.toString(sorted[Math.max(0, Math.min(sorted.length - 1, r - 1))]);
    }
}
