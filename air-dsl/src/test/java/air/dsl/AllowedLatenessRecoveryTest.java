package air.dsl;

import static air.dsl.AllowedLatenessTest.DISORDER;
import static air.dsl.AllowedLatenessTest.KEYS;
import static air.dsl.AllowedLatenessTest.LATENESS;
import static air.dsl.AllowedLatenessTest.N;
import static air.dsl.AllowedLatenessTest.batch;
import static air.dsl.AllowedLatenessTest.expectedDropped;
import static air.dsl.AllowedLatenessTest.timeOf;
import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.channels.InJvmTransports;
import air.channels.Transport;
import air.runtime.Cluster;
import air.runtime.Job;
import air.runtime.JobFailedException;
import air.runtime.api.SinkFactory;
import air.runtime.api.WindowDefinition;
import air.runtime.api.WindowUpdate;
import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import air.runtime.sink.CollectSink;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Allowed lateness and early results under fault tolerance and across peers: a job that fails and
 * resumes from a checkpoint, and one that loses a peer under replication, end with the last row
 * per (window, key) equal to the batch result over the admitted records, and the records beyond the
 * lateness on the side output once each — no admitted record lost or counted twice, although the
 * window's updates (previews of open frames, late records) reach it out of frame order and are
 * replayed in other batches than the first time.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AllowedLatenessRecoveryTest {

    private static final long SEED = 2;
    private static final WindowDefinition SLIDING = new WindowDefinition(2_000, 500);
    private static final Cluster.Options FAST = new Cluster.Options(50, 5_000, 20_000);

    private static String row(WindowUpdate<Long, Long> u) {
        return "[" + u.start() + "," + u.end() + ") " + u.key() + "=" + u.value() + " " + u.kind();
    }

    /**
     * The last value per "[start,end) key" of {@code rows} (in emission order per window and key),
     * checking that a count never shrinks from one row to the next: a replay that counted a
     * record twice and then not would show.
     */
    private static Map<String, Long> lastPerWindowAndKey(List<String> rows) {
        Map<String, Long> last = new TreeMap<>();
        for (String r : rows) {
            int eq = r.lastIndexOf('=');
            long value = Long.parseLong(r.substring(eq + 1, r.indexOf(' ', eq)));
            Long before = last.put(r.substring(0, eq), value);
            assertThat(before == null || before <= value).as("%s after %s", r, before).isTrue();
        }
        return last;
    }

    private static List<Long> sorted(List<Long> ids) {
        List<Long> out = new ArrayList<>(ids);
        out.sort(null);
        return out;
    }

    private static Stage<Long> timed(Stage<Long> source) {
        return source.withTimestamps(i -> timeOf(SEED, i), DISORDER);
    }

    /** Counts per key in {@link #SLIDING} windows, admitting late records within the lateness, with early rows every millisecond. */
    private static <S extends SinkFactory<WindowUpdate<Long, Long>>> void window(Stage<Long> timed, S rows, SinkFactory<Long> late) {
        timed.keyByLong(i -> i % KEYS).window(SLIDING).allowedLateness(Duration.ofMillis(LATENESS)).earlyResults(Duration.ofMillis(1))
                .sideOutputLateRecords(late).aggregate(Aggregations.count()).writeTo(rows);
    }

    // ---- checkpoints: fail once, resume ----

    private static void runCheckpointed(Progress progress, Routing routing, CheckpointRecoveryTest.WatchedStore store,
                                        CollectSink<WindowUpdate<Long, Long>> rows, CollectSink<Long> late, int failAfterWrites,
                                        SimpleMeterRegistry registry) {
        AtomicBoolean armed = new AtomicBoolean(failAfterWrites > 0);
        Pipeline p = Pipeline.create();
        Stage<Long> source = p.readFrom(new TestPipelines.HeldSource(N, N / 4, () -> store.writes.get() >= failAfterWrites))
                .map(i -> {
                    if (armed.get() && store.writes.get() >= failAfterWrites && armed.getAndSet(false)) {
                        throw new IllegalStateException("injected failure");
                    }
                    return i;
                });
        window(timed(source), rows, late);
        p.execute(config(2).batchSize(32).idleTimeoutMs(0).progress(progress).routing(routing).checkpoints(store, 40)
                .meterRegistry(registry));
    }

    @ParameterizedTest(name = "progress={0} routing={1}")
    @CsvSource({"WATERMARK,KEY", "HEWMELD,AIR", "WATERMARK,AIR"})
    void a_failed_job_resumes_its_updating_windows_from_a_checkpoint_exactly_once(Progress progress, Routing routing, @TempDir Path dir) {
        CheckpointRecoveryTest.WatchedStore store = new CheckpointRecoveryTest.WatchedStore(dir);
        CollectSink<WindowUpdate<Long, Long>> rows = Sinks.collect();
        CollectSink<Long> late = Sinks.collect();
        assertThatThrownBy(() -> runCheckpointed(progress, routing, store, rows, late, 2, new SimpleMeterRegistry()))
                .isInstanceOf(JobFailedException.class).hasMessageContaining("injected failure");
        SimpleMeterRegistry second = new SimpleMeterRegistry();
        runCheckpointed(progress, routing, store, rows, late, 0, second);
        assertThat(second.find("air.recoveries").counter().count()).as("the second run resumed from a checkpoint").isEqualTo(1);
        List<Long> dropped = expectedDropped(SEED, 2, SLIDING);
        assertThat(sorted(late.items())).as("records beyond the lateness, once each").isEqualTo(dropped);
        List<String> lines = rows.items().stream().map(AllowedLatenessRecoveryTest::row).toList();
        assertThat(lastPerWindowAndKey(lines)).isEqualTo(batch(SEED, dropped, SLIDING));
        assertThat(lines).anyMatch(l -> l.endsWith("LATE")).anyMatch(l -> l.endsWith("EARLY"));
    }

    // ---- replication: a peer lost, its share taken over ----

    private static double count(SimpleMeterRegistry registry, String name) {
        return registry.find(name).counter() == null ? 0 : registry.find(name).counter().count();
    }

    @ParameterizedTest(name = "progress={0} routing={1} victim={2}")
    @CsvSource({"WATERMARK,KEY,1", "HEWMELD,AIR,2"})
    void a_lost_peers_updating_windows_are_taken_over_exactly_once(Progress progress, Routing routing, int victim) throws Exception {
        int peers = 3;
        List<Transport> net = InJvmTransports.network(peers);
        AtomicBoolean go = new AtomicBoolean(); // every source holds a quarter of the way in until the victim has died
        List<TestPipelines.KeptRows<WindowUpdate<Long, Long>>> rows = new ArrayList<>();
        List<TestPipelines.KeptRows<Long>> late = new ArrayList<>();
        List<SimpleMeterRegistry> registries = new ArrayList<>();
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        List<CompletableFuture<Job>> jobs = new ArrayList<>();
        for (int r = 0; r < peers; r++) {
            TestPipelines.KeptRows<WindowUpdate<Long, Long>> sink = new TestPipelines.KeptRows<>(AllowedLatenessRecoveryTest::row);
            TestPipelines.KeptRows<Long> lateSink = new TestPipelines.KeptRows<>(String::valueOf);
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            rows.add(sink);
            late.add(lateSink);
            registries.add(registry);
            Transport t = net.get(r);
            CompletableFuture<Job> job = new CompletableFuture<>();
            jobs.add(job);
            BooleanSupplier release = go::get;
            runs.add(CompletableFuture.runAsync(() -> {
                try (Cluster c = Cluster.over(t, FAST)) {
                    Pipeline p = Pipeline.create();
                    window(timed(p.readFrom(new TestPipelines.HeldSource(N, N / 4 / (peers * 2), release))), sink, lateSink);
                    Job j = p.submit(config(2).batchSize(16).idleTimeoutMs(0).routing(routing).progress(progress).replication(1, 100)
                            .meterRegistry(registry).cluster(c));
                    job.complete(j);
                    j.join();
                }
            }, task -> Thread.ofPlatform().start(task)));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (count(registries.get(victim), "air.checkpoints") < 3 && System.nanoTime() < deadline) {
            LockSupport.parkNanos(5_000_000L); // polls a meter; the job runs on its own threads
        }
        assertThat(count(registries.get(victim), "air.checkpoints")).isGreaterThanOrEqualTo(3);
        InJvmTransports.crash(net.get(victim), "killed by the test");
        int host = (victim + 1) % peers;
        while (count(registries.get(host), "air.takeovers") < 1 && System.nanoTime() < deadline + TimeUnit.SECONDS.toNanos(30)) {
            LockSupport.parkNanos(5_000_000L); // polls a meter, as above
        }
        assertThat(count(registries.get(host), "air.takeovers")).as("peer " + host + " took the share over").isEqualTo(1);
        go.set(true);
        assertThatThrownBy(() -> runs.get(victim).get(60, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
        List<String> lines = new ArrayList<>();
        List<Long> lateIds = new ArrayList<>();
        for (int r = 0; r < peers; r++) {
            if (r != victim) {
                runs.get(r).get(60, TimeUnit.SECONDS);
                lines.addAll(rows.get(r).closed);
                late.get(r).closed.forEach(s -> lateIds.add(Long.parseLong(s)));
            }
        }
        List<Long> dropped = expectedDropped(SEED, peers * 2, SLIDING);
        assertThat(sorted(lateIds)).as("records beyond the lateness, once each").isEqualTo(dropped);
        assertThat(lastPerWindowAndKey(lines)).isEqualTo(batch(SEED, dropped, SLIDING));
        assertThat(lines).anyMatch(l -> l.endsWith("LATE"));
    }

    // ---- peers without faults: updates cross the wire ----

    @ParameterizedTest(name = "progress={0} routing={1}")
    @CsvSource({"WATERMARK,KEY", "HEWMELD,AIR"})
    void updates_cross_peers_in_their_wire_form(Progress progress, Routing routing) throws Exception {
        List<Transport> net = InJvmTransports.network(2);
        List<CompletableFuture<List<String>>> parts = new ArrayList<>();
        List<CollectSink<Long>> late = new ArrayList<>();
        for (Transport t : net) {
            CollectSink<Long> lateSink = Sinks.collect();
            late.add(lateSink);
            parts.add(CompletableFuture.supplyAsync(() -> {
                try (Cluster c = Cluster.over(t, FAST)) {
                    Pipeline p = Pipeline.create();
                    CollectSink<WindowUpdate<Long, Long>> rows = Sinks.collect();
                    window(timed(p.readFrom(Sources.generate(N, i -> i))), rows, lateSink);
                    p.execute(config(2).batchSize(32).idleTimeoutMs(0).progress(progress).routing(routing).cluster(c));
                    return rows.items().stream().map(AllowedLatenessRecoveryTest::row).toList();
                }
            }, r -> Thread.ofPlatform().start(r)));
        }
        List<String> lines = new ArrayList<>();
        List<Long> lateIds = new ArrayList<>();
        for (int i = 0; i < parts.size(); i++) {
            lines.addAll(parts.get(i).get(60, TimeUnit.SECONDS));
            lateIds.addAll(late.get(i).items());
        }
        List<Long> dropped = expectedDropped(SEED, 4, SLIDING);
        assertThat(sorted(lateIds)).isEqualTo(dropped);
        assertThat(lastPerWindowAndKey(lines)).isEqualTo(batch(SEED, dropped, SLIDING));
    }
}
