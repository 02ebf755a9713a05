package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.channels.Channels;
import air.channels.InJvmTransports;
import air.channels.Transport;
import air.channels.tcp.TcpTransport;
import air.runtime.Cluster;
import air.runtime.Job;
import air.runtime.api.Codec;
import air.runtime.api.WindowDefinition;
import air.runtime.api.WindowResult;
import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import air.wire.WireIn;
import air.wire.WireOut;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Replication across peers in one JVM, over real TCP on loopback: a peer "dies" (its sockets
 * drop at once, as a killed process's do) after its state was replicated; the next peer takes
 * its share over without anyone rolling back, and the survivors' output together is exactly what
 * a batch computation gives — nothing lost, nothing twice.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReplicationTest {

    private static final Cluster.Options FAST = new Cluster.Options(50, 5_000, 20_000);
    private static final long N = 6_000;

    /** Keeps each writer's window results in its snapshot (as a durable sink would), and the closed writers' rows of one peer. */
    static final class RowsSink extends TestPipelines.KeptRows<WindowResult<Long, Long>> {
        RowsSink() {
            super(r -> "[" + r.start() + "," + r.end() + ") " + r.key() + "=" + r.value());
        }
    }

    static List<TcpTransport> tcpNetwork(int peers) throws Exception {
        return TcpTransport.onLoopback(peers, 20_000);
    }

    private static final Codec<Long> LONGS = new Codec<>() {
        @Override public void write(Long value, WireOut out) { out.putLong(value); }
        @Override public Long read(WireIn in) { return in.getLong(); }
    };

    /** {@code rebalanced}: the records cross a rebalance exchange (records, not partials, replayed after a takeover) first. */
    private static Pipeline pipeline(WindowDefinition window, RowsSink sink, BooleanSupplier release, boolean rebalanced) {
        Pipeline p = Pipeline.create();
        Stage<Long> timed = p.readFrom(new TestPipelines.HeldSource(N, N / 12, release)).withTimestamps(i -> i, 0);
        (rebalanced ? timed.rebalance(LONGS) : timed)
                .keyByLong(i -> i % 13)
                .window(window)
                .aggregate(Aggregations.count())
                .writeTo(sink);
        return p;
    }

    static Map<String, Long> collected(List<String> rows) {
        Map<String, Long> out = new TreeMap<>();
        for (String r : rows) {
            int eq = r.lastIndexOf('=');
            Long before = out.put(r.substring(0, eq), Long.parseLong(r.substring(eq + 1)));
            assertThat(before).as("result emitted twice: " + r).isNull();
        }
        return out;
    }

    static double count(SimpleMeterRegistry registry, String name) {
        return registry.find(name).counter() == null ? 0 : registry.find(name).counter().count();
    }

    /** {@code transport}: tcp (over loopback, the victim's sockets dropped) or injvm (the in-JVM network, the victim crashed). */
    @ParameterizedTest(name = "{0} routing={1} progress={2} victim={3} rebalanced={4} transport={5}")
    @CsvSource({"tumbling,AIR,HEWMELD,1,false,tcp", "tumbling,KEY,WATERMARK,2,false,tcp", "sliding,AIR,WATERMARK,1,false,tcp",
                "sliding,KEY,HEWMELD,2,false,tcp", "tumbling,AIR,HEWMELD,2,true,tcp", "tumbling,KEY,WATERMARK,1,true,tcp",
                "sliding,KEY,HEWMELD,1,false,injvm"})
    void a_dead_peers_share_is_taken_over_without_a_rollback_exactly_once(String kind, Routing routing, Progress progress, int victim,
                                                                          boolean rebalanced, String transport) throws Exception {
        takeoverRun(kind, routing, progress, victim, rebalanced, transport);
    }

    /**
     * Upstream-backup logs bounded at 2 KiB: producers are held back until replicated snapshots let
     * their logs go (a snapshot under way; never one they would have to start themselves), and the
     * run with a loss is still exactly once.
     */
    @Test
    void a_bounded_upstream_log_holds_producers_back_and_the_takeover_still_loses_nothing() throws Exception {
        System.setProperty("air.replication.upstreamLogBytes", "2048");
        try {
            List<SimpleMeterRegistry> registries = takeoverRun("tumbling", Routing.KEY, Progress.WATERMARK, 1, false, "tcp");
            double holds = 0;
            for (SimpleMeterRegistry r : registries) {
                holds += count(r, "air.upstream.log.holds");
            }
            assertThat(holds).as("producers held back by the bound").isPositive();
        } finally {
            System.clearProperty("air.replication.upstreamLogBytes");
        }
    }

    /**
     * Replica copies in chunks of 256 bytes (every copy is several: a peer's part is kilobytes), on
     * the way to a takeover: the copy taken over is reassembled whole and the run is exactly once.
     */
    @Test
    void replica_copies_in_many_chunks_are_reassembled_and_the_takeover_still_loses_nothing() throws Exception {
        System.setProperty("air.replication.chunkBytes", "256");
        try {
            List<SimpleMeterRegistry> registries = takeoverRun("sliding", Routing.KEY, Progress.HEWMELD, 1, false, "tcp");
            double largest = 0;
            for (SimpleMeterRegistry r : registries) {
                if (r.find("air.checkpoint.size").summary() != null) {
                    largest = Math.max(largest, r.find("air.checkpoint.size").summary().max());
                }
            }
            assertThat(largest).as("a copy of several chunks").isGreaterThan(3 * 256);
        } finally {
            System.clearProperty("air.replication.chunkBytes");
        }
    }

    private List<SimpleMeterRegistry> takeoverRun(String kind, Routing routing, Progress progress, int victim, boolean rebalanced,
                                                  String transport) throws Exception {
        WindowDefinition window = kind.equals("tumbling") ? Windows.tumbling(100) : Windows.sliding(200, 100);
        int peers = 3;
        boolean inJvm = transport.equals("injvm");
        List<Transport> net = inJvm ? InJvmTransports.network(peers) : new ArrayList<>(tcpNetwork(peers));
        // every source holds halfway until the victim has died: the loss lands mid-run
        AtomicBoolean go = new AtomicBoolean();
        List<RowsSink> sinks = new ArrayList<>();
        List<SimpleMeterRegistry> registries = new ArrayList<>();
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        List<CompletableFuture<Job>> jobs = new ArrayList<>();
        for (int r = 0; r < peers; r++) {
            RowsSink sink = new RowsSink();
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            sinks.add(sink);
            registries.add(registry);
            Transport t = net.get(r);
            CompletableFuture<Job> job = new CompletableFuture<>();
            jobs.add(job);
            runs.add(CompletableFuture.runAsync(() -> {
                try (Cluster c = Cluster.over(t, FAST)) {
                    Job j = pipeline(window, sink, go::get, rebalanced).submit(config(2).batchSize(16).routing(routing)
                            .progress(progress).replication(1, 100).meterRegistry(registry).cluster(c));
                    job.complete(j);
                    j.join();
                }
            }, task -> Thread.ofPlatform().start(task)));
        }
        // the victim dies once its state has been replicated a few times
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (count(registries.get(victim), "air.checkpoints") < 3 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(5_000_000L); // polls a meter; the job runs on its own threads
        }
        assertThat(count(registries.get(victim), "air.checkpoints")).isGreaterThanOrEqualTo(3);
        if (inJvm) {
            InJvmTransports.crash(net.get(victim), "killed by the test");
        } else {
            ((TcpTransport) net.get(victim)).crash();
        }
        int host = (victim + 1) % peers;
        // the survivors hold until the takeover is done: the host's report names what it took over
        while (count(registries.get(host), "air.takeovers") < 1 && System.nanoTime() < deadline + TimeUnit.SECONDS.toNanos(30)) {
            LockSupport.parkNanos(5_000_000L); // polls a meter, as above
        }
        assertThat(jobs.get(host).get(10, TimeUnit.SECONDS).progressReport()).contains("on peer " + host + ", taken over from peer " + victim);
        go.set(true);
        assertThatThrownBy(() -> runs.get(victim).get(60, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
        List<String> rows = new ArrayList<>();
        for (int r = 0; r < peers; r++) {
            if (r != victim) {
                runs.get(r).get(60, TimeUnit.SECONDS);
                rows.addAll(sinks.get(r).closed);
            }
        }
        assertThat(count(registries.get(host), "air.takeovers")).as("peer " + host + " took the share over").isEqualTo(1);
        long results = 0;
        for (int r = 0; r < peers; r++) {
            if (r != victim) {
                results += jobs.get(r).get().summary().windowResults();
            }
        }
        assertThat(results).as("the survivors' summaries count the results of the share taken over too").isEqualTo(rows.size());
        assertThat(collected(rows)).isEqualTo(TestPipelines.expectedCounts(N, 13, window));
        assertReleased();
        return registries;
    }

    /** No thread of the transports, replicas or takeovers outlives the jobs and their clusters. */
    static void assertReleased() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<String> alive;
        do {
            alive = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                    .filter(n -> n.startsWith("air-replica") || n.contains("/takeover-") || n.contains("/resend-to-")
                            || n.startsWith("air-tcp-send") || n.startsWith("air-injvm-") || n.contains("checkpoint-writer"))
                    .toList();
            if (!alive.isEmpty()) {
                LockSupport.parkNanos(20_000_000L); // threads end just after close returns
            }
        } while (!alive.isEmpty() && System.nanoTime() < deadline);
        assertThat(alive).as("threads left running").isEmpty();
    }

    @Test
    void a_peer_lost_before_its_state_was_ever_replicated_fails_the_job_saying_why() throws Exception {
        int peers = 3;
        List<TcpTransport> net = tcpNetwork(peers);
        long start = System.nanoTime() + 100_000_000L;
        CountDownLatch victimRunning = new CountDownLatch(1);
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (int r = 0; r < peers; r++) {
            Transport t = net.get(r);
            boolean victim = r == 1;
            runs.add(CompletableFuture.runAsync(() -> {
                try (Cluster c = Cluster.over(t, FAST)) {
                    Pipeline p = Pipeline.create();
                    p.readFrom(Sources.generate(N, i -> i).paced(3_000, start))
                            .map(i -> {
                                if (victim) {
                                    victimRunning.countDown();
                                }
                                return i;
                            })
                            .withTimestamps(i -> i, 0).keyByLong(i -> i % 13).window(Windows.tumbling(100))
                            .aggregate(Aggregations.count()).writeTo(new RowsSink());
                    // snapshots every minute: none is taken before the victim dies
                    p.execute(config(2).batchSize(16).replication(1, 60_000).cluster(c));
                }
            }, task -> Thread.ofPlatform().start(task)));
        }
        assertThat(victimRunning.await(30, TimeUnit.SECONDS)).isTrue();
        net.get(1).crash();
        for (int r = 0; r < peers; r++) {
            int rank = r;
            assertThatThrownBy(() -> runs.get(rank).get(60, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
        }
        assertThatThrownBy(() -> runs.get(2).get()).hasMessageContaining("could not take over block(s) [1] of peer(s) [1]")
                .hasMessageContaining("holds no copy of block 1's state");
        assertReleased();
    }

    @Test
    void garbage_on_the_replica_channel_fails_the_job_naming_the_peer() throws Exception {
        int peers = 2;
        List<TcpTransport> net = tcpNetwork(peers);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        AtomicBoolean go = new AtomicBoolean(); // holds the jobs mid-run
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (int r = 0; r < peers; r++) {
            Transport t = net.get(r);
            SimpleMeterRegistry reg = r == 0 ? registry : new SimpleMeterRegistry();
            runs.add(CompletableFuture.runAsync(() -> {
                try (Cluster c = Cluster.over(t, FAST)) {
                    pipeline(Windows.tumbling(100), new RowsSink(), go::get, false).execute(config(1).batchSize(16)
                            .replication(1, 50).meterRegistry(reg).cluster(c));
                }
            }, task -> Thread.ofPlatform().start(task)));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (count(registry, "air.checkpoints") < 1 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(5_000_000L); // polls a meter: the jobs are running once a snapshot is replicated
        }
        net.get(1).send(0, Channels.REPLICA, ByteBuffer.wrap(new byte[] {1, 2, 3})); // a PUT cut short
        // the sources stay held: only the garbage can end the jobs (releasing them raced the job's end against reading it)
        assertThatThrownBy(() -> runs.get(0).get(60, TimeUnit.SECONDS)).hasMessageContaining("malformed replica message")
                .hasMessageContaining("from peer 1");
        assertThatThrownBy(() -> runs.get(1).get(60, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
        assertReleased();
    }

    @Test
    void replication_over_a_transport_that_cannot_survive_a_death_is_refused_saying_how_to_fix_it() throws Exception {
        List<Transport> net = InJvmTransports.networkNotSurvivingPeerLoss(2);
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (Transport t : net) {
            runs.add(CompletableFuture.runAsync(() -> {
                try (Cluster c = Cluster.over(t, FAST)) {
                    pipeline(Windows.tumbling(100), new RowsSink(), () -> true, false).execute(config(1).replication(1, 100).cluster(c));
                }
            }, task -> Thread.ofPlatform().start(task)));
        }
        for (CompletableFuture<Void> run : runs) {
            assertThatThrownBy(() -> run.get(30, TimeUnit.SECONDS)).hasMessageContaining("AIR_TRANSPORT=tcp")
                    .hasMessageContaining("survives a peer's death");
        }
    }

    @Test
    void replication_settings_are_validated_where_they_are_made() {
        assertThatThrownBy(() -> config(1).replication(-1, 100)).hasMessageContaining("replicas must be >= 0");
        assertThatThrownBy(() -> config(1).replication(1, 0)).hasMessageContaining("intervalMs must be >= 1");
        assertThatThrownBy(() -> pipeline(Windows.tumbling(100), new RowsSink(), () -> true, false).execute(config(1).replication(1, 100)))
                .hasMessageContaining("replication needs cluster mode");
    }
}
