package air.hewmeld;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Runs the protocol over simulated peers: S sources, R routers that split data and credit on the
 * way, W owner domains, FIFO channels delivered in random interleavings. Seeded, bounded,
 * thousands of schedules. Checks safety (no epoch completes while its data is in flight or still
 * to come), liveness (every epoch with data completes once all sources finished) and that the
 * results equal a plain batch computation of the same input.
 */
class HewMeldPropertyTest {

    private static final int SCHEDULES = 3000;
    private static final long EPOCH = 10;

    private sealed interface Msg permits Data, Part, Direct, Range { }

    private record Data(long epoch, int key, int source, int domain) implements Msg { }

    private record Part(long epoch, int source, int domain, long amount) implements Msg { }

    private record Direct(long epoch, int source, long amount) implements Msg { }

    private record Range(int source, long from, long to) implements Msg { }

    /** A FIFO channel to an owner (direct or from a router) or to a router. */
    private record Channel(boolean toRouter, int target, ArrayDeque<Msg> queue) { }

    @Test
    void safety_liveness_and_equality_hold_over_random_schedules() {
        Random seeds = new Random(20261201);
        int completedEpochs = 0;
        for (int schedule = 0; schedule < SCHEDULES; schedule++) {
            completedEpochs += runSchedule(seeds.nextLong());
        }
        assertThat(completedEpochs).as("the schedules exercised completions").isGreaterThan(SCHEDULES);
    }

    private static int runSchedule(long seed) {
        Random rnd = new Random(seed);
        int sources = 1 + rnd.nextInt(4);
        int domains = 1 + rnd.nextInt(4);
        int routers = 1 + rnd.nextInt(3);
        boolean air = rnd.nextBoolean();
        long maxDelay = new long[] {0, 5, 15, 30}[rnd.nextInt(4)];
        String where = "seed " + seed + " (S=" + sources + " W=" + domains + " R=" + routers + " "
                + (air ? "AIR" : "KEY") + " maxDelay=" + maxDelay + ")";

        List<List<long[]>> input = new ArrayList<>();
        for (int s = 0; s < sources; s++) {
            List<long[]> records = new ArrayList<>();
            long t = rnd.nextInt(20);
            int n = rnd.nextInt(41);
            for (int i = 0; i < n; i++) {
                t += rnd.nextInt(9) + (rnd.nextInt(20) == 0 ? 200 : 0);
                long ts = Math.max(0, t - (maxDelay == 0 ? 0 : rnd.nextInt((int) maxDelay + 1)));
                records.add(new long[] {ts, rnd.nextInt(5)});
            }
            input.add(records);
        }

        SourceProgress[] progress = new SourceProgress[sources];
        int[] next = new int[sources];
        boolean[] finished = new boolean[sources];
        List<Map<String, Set<Integer>>> usedRouters = new ArrayList<>();
        for (int s = 0; s < sources; s++) {
            progress[s] = new SourceProgress(EPOCH, maxDelay);
            usedRouters.add(new HashMap<>());
        }
        CreditLedger[] ledgers = new CreditLedger[domains];
        List<Map<String, Integer>> counts = new ArrayList<>();
        for (int d = 0; d < domains; d++) {
            ledgers[d] = new CreditLedger(sources);
            counts.add(new HashMap<>());
        }
        Map<String, Integer> inFlight = new HashMap<>();
        Map<String, Integer> expected = new HashMap<>();
        Map<String, Integer> emitted = new HashMap<>();
        Set<String> epochsWithData = new LinkedHashSet<>();
        // channels: source -> router, router -> domain, source -> domain (direct)
        Channel[][] toRouter = new Channel[sources][routers];
        Channel[][] routerToDomain = new Channel[routers][domains];
        Channel[][] direct = new Channel[sources][domains];
        List<Channel> all = new ArrayList<>();
        for (int s = 0; s < sources; s++) {
            for (int r = 0; r < routers; r++) {
                all.add(toRouter[s][r] = new Channel(true, r, new ArrayDeque<>()));
            }
            for (int d = 0; d < domains; d++) {
                all.add(direct[s][d] = new Channel(false, d, new ArrayDeque<>()));
            }
        }
        for (int r = 0; r < routers; r++) {
            for (int d = 0; d < domains; d++) {
                all.add(routerToDomain[r][d] = new Channel(false, d, new ArrayDeque<>()));
            }
        }
        int[] completions = {0};

        Runnable noop = () -> { };
        while (true) {
            List<Runnable> moves = new ArrayList<>();
            for (int s = 0; s < sources; s++) {
                int src = s;
                if (next[s] < input.get(s).size()) {
                    moves.add(() -> {
                        long[] rec = input.get(src).get(next[src]++);
                        long epoch = progress[src].onRecord(rec[0]);
                        if (epoch != Long.MIN_VALUE) {
                            int key = (int) rec[1];
                            int d = air ? owner(epoch, domains) : key % domains;
                            int r = rnd.nextInt(routers);
                            usedRouters.get(src).computeIfAbsent(epoch + "/" + d, k -> new LinkedHashSet<>()).add(r);
                            inFlight.merge(epoch + "/" + d, 1, Integer::sum);
                            expected.merge(epoch + "/" + key, 1, Integer::sum);
                            epochsWithData.add(epoch + "/" + d);
                            toRouter[src][r].queue().add(new Data(epoch, key, src, d));
                        }
                        release(src, progress[src].advance(), air, sources, domains, usedRouters, toRouter, direct);
                    });
                } else if (!finished[s]) {
                    moves.add(() -> {
                        finished[src] = true;
                        release(src, progress[src].finish(), air, sources, domains, usedRouters, toRouter, direct);
                    });
                }
            }
            for (Channel c : all) {
                if (!c.queue().isEmpty()) {
                    moves.add(() -> {
                        Msg m = c.queue().poll();
                        if (c.toRouter()) {
                            int d = m instanceof Data data ? data.domain() : ((Part) m).domain();
                            routerToDomain[c.target()][d].queue().add(m);
                        } else {
                            deliver(m, c.target(), ledgers[c.target()], counts.get(c.target()), inFlight, emitted, completions, where);
                        }
                    });
                }
            }
            if (moves.isEmpty()) {
                break;
            }
            moves.get(rnd.nextInt(moves.size())).run();
        }
        noop.run();

        for (String ed : epochsWithData) {
            String[] parts = ed.split("/");
            assertThat(ledgers[Integer.parseInt(parts[1])].isComplete(Long.parseLong(parts[0])))
                    .as("liveness: epoch %s completes once all sources finished, %s", ed, where).isTrue();
        }
        Map<String, Integer> missing = new TreeMap<>(expected);
        emitted.forEach((k, v) -> missing.merge(k, -v, Integer::sum));
        missing.values().removeIf(v -> v == 0);
        assertThat(missing).as("results equal the batch computation (expected minus emitted), %s", where).isEmpty();
        return completions[0];
    }

    private static int owner(long epoch, int domains) {
        return (int) Math.floorMod(Math.floorDiv(epoch, EPOCH), (long) domains);
    }

    private static void release(int s, List<SourceProgress.Release> releases, boolean air, int sources, int domains,
                                List<Map<String, Set<Integer>>> usedRouters, Channel[][] toRouter, Channel[][] direct) {
        long share = Credit.shareOf(s, sources);
        for (SourceProgress.Release rel : releases) {
            if (rel instanceof SourceProgress.Release.Range range) {
                for (int d = 0; d < domains; d++) {
                    direct[s][d].queue().add(new Range(s, range.from(), range.to()));
                }
                continue;
            }
            long epoch = ((SourceProgress.Release.Point) rel).epoch();
            int[] targets = air ? new int[] {owner(epoch, domains)} : IntStream.range(0, domains).toArray();
            for (int d : targets) {
                Set<Integer> used = usedRouters.get(s).remove(epoch + "/" + d);
                if (used == null) {
                    direct[s][d].queue().add(new Direct(epoch, s, share));
                } else {
                    long[] parts = Credit.split(share, used.size());
                    int i = 0;
                    for (int r : used) {
                        toRouter[s][r].queue().add(new Part(epoch, s, d, parts[i++]));
                    }
                }
            }
        }
    }

    private static void deliver(Msg m, int d, CreditLedger ledger, Map<String, Integer> counts, Map<String, Integer> inFlight,
                                Map<String, Integer> emitted, int[] completions, String where) {
        switch (m) {
            case Data data -> {
                assertThat(ledger.isComplete(data.epoch()))
                        .as("safety: data for epoch %d reached domain %d after it completed, %s", data.epoch(), d, where).isFalse();
                counts.merge(data.epoch() + "/" + data.key(), 1, Integer::sum);
                inFlight.merge(data.epoch() + "/" + d, -1, Integer::sum);
            }
            case Part part -> complete(ledger.add(part.epoch(), part.source(), part.amount()) ? List.of(part.epoch()) : List.of(),
                    d, counts, inFlight, emitted, completions, where);
            case Direct credit -> complete(ledger.add(credit.epoch(), credit.source(), credit.amount()) ? List.of(credit.epoch()) : List.of(),
                    d, counts, inFlight, emitted, completions, where);
            case Range range -> complete(ledger.release(range.source(), range.from(), range.to()),
                    d, counts, inFlight, emitted, completions, where);
        }
    }

    private static void complete(List<Long> epochs, int d, Map<String, Integer> counts, Map<String, Integer> inFlight,
                                 Map<String, Integer> emitted, int[] completions, String where) {
        for (long epoch : epochs) {
            completions[0]++;
            assertThat(inFlight.getOrDefault(epoch + "/" + d, 0))
                    .as("safety: epoch %d completed at domain %d with data in flight, %s", epoch, d, where).isZero();
            counts.entrySet().removeIf(e -> {
                if (e.getKey().startsWith(epoch + "/")) {
                    emitted.merge(e.getKey(), e.getValue(), Integer::sum);
                    return true;
                }
                return false;
            });
        }
    }
}
