package air.samples.ysb;

import air.launcher.LocalCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The local launcher under replication with {@code --kill N}: one run, no restarts. It
 * {@code kill -9}s a random live peer at seeded moments (rank 0 included: results then gather at
 * the lowest live rank), the first once
 * every peer has replicated a snapshot; the next live peer takes its share over. Before each further kill it waits until the takeover is done and
 * every survivor has replicated a snapshot since (so that the copies are current: with k = 1 two
 * losses within one interval cannot be survived), and it never kills once a peer's part is done.
 * Afterwards it checks the output against a plain loop and prints {@code CHECK lost=.. dup=..
 * kills=.. recovery_p50_ms=..}: recovery is from the kill to the first new row of a taken-over
 * sink; {@code takeover} is from the kill to the takeover's log line.
 */
final class YsbReplicaSupervisor {

    private static final long DAY_MS = 24L * 3600 * 1000;
    private static final long KILL_AFTER_MS = 300;
    private static final long KILL_SPREAD_MS = 1_500;
    private static final long WAIT_MS = 120_000;
    private static final String JOB_STARTING = "job 'ysb-mem' starting";
    private static final String TAKEOVER = "job 'ysb-mem' TAKEOVER on peer";
    /** A peer's log line when what its replicated snapshot covers, or where it went, changed. */
    private static final java.util.regex.Pattern REPLICATED =
            java.util.regex.Pattern.compile("state of block\\(s\\) \\[([0-9, ]*)\\] replicated at checkpoint [0-9]+ on peer\\(s\\) \\[([0-9, ]*)\\]");
    private static final String PART_DONE = "'s part is done";

    /** Passes the peers' output on and keeps the moments of the lines a kill waits for. */
    private static final class Watch implements Consumer<String> {
        private final Consumer<String> out;
        private final Set<Integer> started = ConcurrentHashMap.newKeySet();
        private final List<long[]> takeovers = new CopyOnWriteArrayList<>(); // {ms, peer}
        /** Per peer, the blocks its newest replicated snapshot covers, and the peers holding it. */
        private final Map<Integer, Set<Integer>> covered = new ConcurrentHashMap<>();
        private final Map<Integer, List<Integer>> holders = new ConcurrentHashMap<>();
        private volatile boolean partDone;

        Watch(Consumer<String> out) {
            this.out = out;
        }

        @Override
        public void accept(String line) {
            out.accept(line);
            if (!line.startsWith("[peer ")) {
                return;
            }
            int peer = Integer.parseInt(line.substring(6, line.indexOf(']')));
            long now = System.currentTimeMillis();
            if (line.contains(JOB_STARTING)) {
                started.add(peer);
            } else if (line.contains(TAKEOVER)) {
                takeovers.add(new long[] {now, peer});
            } else if (REPLICATED.matcher(line).find()) {
                java.util.regex.Matcher m = REPLICATED.matcher(line);
                m.find();
                holders.put(peer, numbers(m.group(2)));
                covered.put(peer, new HashSet<>(numbers(m.group(1))));
            } else if (line.contains(PART_DONE)) {
                partDone = true;
            }
        }

        /** Waits until {@code test} holds; false when a live peer exited, a part finished or the wait ran out. */
        boolean await(LocalCluster cluster, Set<Integer> live, java.util.function.BooleanSupplier test) {
            long deadline = System.currentTimeMillis() + WAIT_MS;
            while (!test.getAsBoolean()) {
                if (partDone || System.currentTimeMillis() > deadline || live.stream().anyMatch(p -> !cluster.process(p).isAlive())) {
                    return false;
                }
                java.util.concurrent.locks.LockSupport.parkNanos(20_000_000L); // polls the peers' log lines
            }
            return !partDone;
        }

        /** The first takeover line after {@code since}, or null. */
        long[] takeoverAfter(long since) {
            return takeovers.stream().filter(t -> t[0] >= since).findFirst().orElse(null);
        }

        private static List<Integer> numbers(String list) {
            return list.isBlank() ? List.of() : Arrays.stream(list.split(",\\s*")).map(String::trim).map(Integer::valueOf).toList();
        }

        /**
         * Whether every live peer's newest replicated snapshot covers exactly the blocks it hosts and
         * is held by its next {@code replicas} live peers: the copies a further loss needs are there.
         * A peer logs that line whenever what it covers or where it goes changes.
         */
        boolean allReplicated(Set<Integer> live, Map<Integer, Set<Integer>> blocksOn, int replicas, int peers) {
            for (int p : live) {
                List<Integer> next = new ArrayList<>();
                for (int k = 1; k < peers && next.size() < replicas; k++) {
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

    private YsbReplicaSupervisor() {
    }

    static int run(YsbArgs args, LocalCluster.Spec spec) throws IOException, InterruptedException {
        SplittableRandom random = new SplittableRandom(args.faults().killSeed());
        Path marks = Files.createTempDirectory("air-ysb-takeover-");
        Watch watch = new Watch(spec.output());
        LocalCluster.Spec s = spec.withOutput(watch).withFailureGraceMs(DAY_MS)
                .withEnvironment(Map.of(FirstOutput.DIR, marks.toString()));
        List<Long> kills = new ArrayList<>();
        List<Long> takeoverMs = new ArrayList<>();
        List<Set<Integer>> victimBlocks = new ArrayList<>();
        Set<Integer> live = new HashSet<>();
        for (int p = 0; p < args.peers(); p++) {
            live.add(p);
        }
        int replicas = args.faults().replicas();
        Map<Integer, Set<Integer>> blocksOn = new ConcurrentHashMap<>();
        for (int p = 0; p < args.peers(); p++) {
            blocksOn.put(p, new HashSet<>(Set.of(p)));
        }
        int[] codes;
        try (LocalCluster cluster = LocalCluster.start(s)) {
            // a peer killed before its first snapshot is replicated cannot be taken over: wait for one from each
            boolean ok = watch.await(cluster, live, () -> watch.started.size() == args.peers() && watch.allReplicated(live, blocksOn, replicas, args.peers()));
            long ready = System.currentTimeMillis();
            while (ok && kills.size() < args.faults().kills()) {
                long at = ready + KILL_AFTER_MS + random.nextLong(KILL_SPREAD_MS);
                ok = watch.await(cluster, live, () -> System.currentTimeMillis() >= at);
                if (!ok) {
                    break;
                }
                List<Integer> candidates = live.stream().sorted().toList();
                int victim = candidates.get(random.nextInt(candidates.size()));
                long killedAt = System.currentTimeMillis();
                cluster.kill(victim);
                kills.add(killedAt);
                say(spec, "[launcher] kill -9 peer %d (kill %d of %d)", victim, kills.size(), args.faults().kills());
                live.remove(victim);
                int host = nextLive(victim, live, args.peers());
                victimBlocks.add(new HashSet<>(blocksOn.get(victim)));
                blocksOn.get(host).addAll(blocksOn.remove(victim));
                ok = watch.await(cluster, live, () -> watch.takeoverAfter(killedAt) != null);
                long[] t = watch.takeoverAfter(killedAt);
                takeoverMs.add(t == null ? -1 : t[0] - killedAt);
                if (!ok || t == null) {
                    break;
                }
                // every survivor whose blocks or replica changed logs it once its next snapshot is replicated
                ok = watch.await(cluster, live, () -> watch.allReplicated(live, blocksOn, replicas, args.peers()));
                ready = System.currentTimeMillis();
            }
            codes = cluster.await(DAY_MS);
        }
        try {
            for (int p : live) {
                if (codes[p] != 0) {
                    say(spec, "[launcher] peer %d exited with status %d", p, codes[p]);
                    return codes[p] == -1 ? 1 : codes[p];
                }
            }
            if (kills.size() < args.faults().kills()) {
                say(spec, "[launcher] only %d of %d kills landed before the job ended: make the run longer", kills.size(),
                        args.faults().kills());
            }
            return report(args, kills, takeoverMs, victimBlocks, marks, spec) ? 0 : 1;
        } finally {
            try (Stream<Path> files = Files.list(marks)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(marks);
        }
    }

    private static int nextLive(int dead, Set<Integer> live, int peers) {
        for (int k = 1; k < peers; k++) {
            int p = (dead + k) % peers;
            if (live.contains(p)) {
                return p;
            }
        }
        throw new IllegalStateException("no live peer left");
    }

    /** Prints the checker line; true when nothing was lost or duplicated. */
    private static boolean report(YsbArgs args, List<Long> kills, List<Long> takeoverMs, List<Set<Integer>> victimBlocks, Path marks,
                                  LocalCluster.Spec spec) throws IOException {
        List<long[]> firsts = new ArrayList<>(); // {ms, instance}
        try (Stream<Path> files = Files.list(marks)) {
            for (Path f : files.toList()) {
                String name = f.getFileName().toString();
                if (name.startsWith(FirstOutput.RESTORED)) {
                    String[] parts = name.substring(FirstOutput.RESTORED.length()).split("-");
                    firsts.add(new long[] {Long.parseLong(Files.readString(f).trim()), Long.parseLong(parts[0])});
                }
            }
        }
        long[] recovery = new long[kills.size()];
        for (int k = 0; k < kills.size(); k++) {
            long killedAt = kills.get(k);
            long until = k + 1 < kills.size() ? kills.get(k + 1) : Long.MAX_VALUE;
            Set<Integer> blocks = victimBlocks.get(k);
            long first = firsts.stream().filter(m -> m[0] >= killedAt && m[0] < until && blocks.contains((int) (m[1] / args.parallelism())))
                    .mapToLong(m -> m[0]).min().orElse(-1);
            recovery[k] = first < 0 ? -1 : first - killedAt;
            say(spec, "[launcher] kill %d: takeover_ms=%d first_output_ms=%d", k + 1, takeoverMs.get(k), recovery[k]);
        }
        long[] known = Arrays.stream(recovery).filter(r -> r >= 0).sorted().toArray();
        long[] takeovers = takeoverMs.stream().mapToLong(Long::longValue).filter(t -> t >= 0).sorted().toArray();
        YsbOutputCheck.Outcome o = YsbOutputCheck.check(args.out(), args);
        say(spec, "CHECK lost=%d dup=%d kills=%d recovery_p50_ms=%s recovery_p95_ms=%s recovery_max_ms=%s takeover_p50_ms=%s"
                        + " takeover_p95_ms=%s takeover_max_ms=%s rows=%d",
                o.lost(), o.duplicated(), kills.size(), rank(known, 0.50), rank(known, 0.95),
                known.length == 0 ? "n/a" : Long.toString(known[known.length - 1]), rank(takeovers, 0.50), rank(takeovers, 0.95),
                takeovers.length == 0 ? "n/a" : Long.toString(takeovers[takeovers.length - 1]), o.rows());
        return o.lost() == 0 && o.duplicated() == 0 && kills.size() == args.faults().kills();
    }

    private static void say(LocalCluster.Spec spec, String format, Object... args) {
        YsbSupervisor.say(spec, format, args);
    }

    private static String rank(long[] sorted, double p) {
        return YsbSupervisor.rank(sorted, p);
    }
}
