package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.channels.InJvmTransports;
import air.channels.Transport;
import air.runtime.Cluster;
import air.runtime.Job;
import air.runtime.JobEvent;
import air.runtime.api.WindowDefinition;
import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The replication loss window (issue 29, finding 1). A peer's data lane lags (its data frames are
 * held 150–400 ms before they leave, as in a congested link), and the peer is killed the moment a
 * snapshot of it counts as replicated ({@link JobEvent.StateReplicated}), with whatever its lane
 * still held. A snapshot must count only once what the peer sent before that snapshot's barrier has
 * reached its receivers: the takeover resumes the peer's producers after the barrier, so anything
 * before it that died in the lane would be lost. Before, a snapshot counted as soon as its replicas
 * held it. The survivors' output must be what a batch computation gives, under one replica and two,
 * with seeded lags, victims, routings and kill points.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReplicationLossWindowTest {

    private static final Cluster.Options FAST = new Cluster.Options(50, 5_000, 20_000);
    private static final long N = 12_000;

    @ParameterizedTest(name = "replicas={0} seed={1}")
    @CsvSource({"1,1", "1,2", "2,3", "2,4"})
    void a_peer_killed_as_its_snapshot_counts_as_replicated_loses_nothing_it_sent_before_that_snapshot(int replicas, long seed)
            throws Exception {
        SplittableRandom random = new SplittableRandom(seed);
        int peers = 3;
        int victim = 1 + random.nextInt(2);
        Duration lag = Duration.ofMillis(150 + random.nextInt(250));
        int killAfter = 2 + random.nextInt(3);
        Routing routing = random.nextBoolean() ? Routing.AIR : Routing.KEY;
        Progress progress = routing == Routing.AIR ? Progress.HEWMELD : Progress.WATERMARK;
        WindowDefinition window = random.nextBoolean() ? Windows.tumbling(100) : Windows.sliding(200, 100);
        String run = "replicas=" + replicas + " victim=" + victim + " lag=" + lag.toMillis() + "ms killAfter=" + killAfter + " " + routing
                + " " + progress + " " + window;

        List<Transport> net = new ArrayList<>(InJvmTransports.network(peers));
        LaggingDataTransport lagging = new LaggingDataTransport(net.get(victim), lag);
        net.set(victim, lagging);
        AtomicInteger replicated = new AtomicInteger();
        AtomicLong droppedAtKill = new AtomicLong(-1);
        long start = System.nanoTime() + 100_000_000L;
        List<ReplicationTest.RowsSink> sinks = new ArrayList<>();
        List<SimpleMeterRegistry> registries = new ArrayList<>();
        List<CompletableFuture<Job>> jobs = new ArrayList<>();
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (int r = 0; r < peers; r++) {
            ReplicationTest.RowsSink sink = new ReplicationTest.RowsSink();
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            sinks.add(sink);
            registries.add(registry);
            Transport t = net.get(r);
            boolean isVictim = r == victim;
            CompletableFuture<Job> job = new CompletableFuture<>();
            jobs.add(job);
            runs.add(CompletableFuture.runAsync(() -> {
                try (Cluster c = Cluster.over(t, FAST)) {
                    Pipeline p = Pipeline.create();
                    p.readFrom(Sources.generate(N, i -> i).paced(3_000, start)).withTimestamps(i -> i, 0)
                            .keyByLong(i -> i % 13).window(window).aggregate(Aggregations.count()).writeTo(sink);
                    var cfg = config(2).batchSize(16).routing(routing).progress(progress).replication(replicas, 100)
                            .meterRegistry(registry).cluster(c);
                    if (isVictim) {
                        // killed on the thread that reports the snapshot replicated, before it does anything else
                        cfg = cfg.listener(e -> {
                            if (e instanceof JobEvent.StateReplicated && replicated.incrementAndGet() == killAfter) {
                                droppedAtKill.set(lagging.crash("killed by the test as its snapshot counted as replicated"));
                            }
                        });
                    }
                    Job j = p.submit(cfg);
                    job.complete(j);
                    j.join();
                }
            }, task -> Thread.ofPlatform().start(task)));
        }
        assertThatThrownBy(() -> runs.get(victim).get(60, TimeUnit.SECONDS)).as(run).isInstanceOf(ExecutionException.class);
        assertThat(droppedAtKill.get()).as(run + ": data frames the kill dropped from the lagging lane").isPositive();
        List<String> rows = new ArrayList<>();
        for (int r = 0; r < peers; r++) {
            if (r != victim) {
                runs.get(r).get(60, TimeUnit.SECONDS);
                rows.addAll(sinks.get(r).closed);
            }
        }
        double takeovers = 0;
        for (SimpleMeterRegistry r : registries) {
            takeovers += ReplicationTest.count(r, "air.takeovers");
        }
        assertThat(takeovers).as(run + ": the victim's share was taken over").isEqualTo(1);
        assertThat(ReplicationTest.collected(rows)).as(run).isEqualTo(TestPipelines.expectedCounts(N, 13, window));
        ReplicationTest.assertReleased();
    }
}
