package air.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.channels.Channels;
import air.dsl.Aggregations;
import air.dsl.Pipeline;
import air.dsl.Sources;
import air.dsl.Windows;
import air.runtime.JobConfig;
import air.runtime.api.WindowResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The simulation on a windowed count over 3 peers: without failures, with peer 1 lost mid-run
 * under replication and under checkpoints (each compared with the run without failures), the same
 * seed giving the same fault point, and wrong output failing with a message.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SimulatedPeersTest {

    private static final long N = 12_000;
    private static final long WINDOW = 200;
    private static final long KEYS = 13;

    /** The count per key and tumbling window, paced to last about a second so that snapshots come before the end. */
    private static void countJob(SimulatedPeers.Peer peer) {
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.generate(N, i -> i).paced(12_000, System.nanoTime()))
                .withTimestamps(i -> i, 0)
                .keyByLong(i -> i % KEYS)
                .window(Windows.tumbling(WINDOW))
                .aggregate(Aggregations.count())
                .writeTo(peer.<WindowResult<Long, Long>>sink(r -> "[" + r.start() + "," + r.end() + ") " + r.key() + "=" + r.value()));
        p.execute(peer.config(JobConfig.defaults().name("simulated-count").workers(2).batchSize(64)));
    }

    /** What a plain loop computes. */
    private static List<String> expected() {
        List<String> rows = new ArrayList<>();
        for (long start = 0; start < N; start += WINDOW) {
            long s = start;
            for (long k = 0; k < KEYS; k++) {
                long key = k;
                long n = LongStream.range(s, Math.min(N, s + WINDOW)).filter(i -> i % KEYS == key).count();
                if (n > 0) {
                    rows.add("[" + s + "," + (s + WINDOW) + ") " + key + "=" + n);
                }
            }
        }
        rows.sort(null);
        return rows;
    }

    @Test
    void three_peers_without_failures_give_the_plain_loops_output() {
        SimulatedPeers.Outcome out = SimulatedPeers.of(3).seed(1).run(SimulatedPeersTest::countJob);
        assertThat(out.output()).isEqualTo(expected());
        assertThat(out.losses()).isEmpty();
        assertThat(out.takeovers()).isEmpty();
        assertThat(out.restarts()).isEmpty();
        assertNoThreadsLeft();
    }

    @Test
    void peer_1_lost_mid_run_under_replication_is_taken_over_exactly_once() {
        SimulatedPeers sim = SimulatedPeers.of(3).seed(42).replication(1, 50).losePeer(1).afterSnapshots(2).atStep(10);
        SimulatedPeers.Outcome out = sim.runAndCompare(SimulatedPeersTest::countJob);
        assertThat(out.output()).isEqualTo(expected());
        assertThat(out.losses()).singleElement().satisfies(l -> {
            assertThat(l.fault()).isEqualTo(new SimulatedPeers.Fault(1, 2, 10));
            assertThat(l.attempt()).isZero();
        });
        assertThat(out.takeovers()).singleElement().asString().contains("peer 2 took over peer 1's block(s)");
        assertThat(out.restarts()).isEmpty();
        assertNoThreadsLeft();
    }

    @Test
    void peer_1_lost_mid_run_under_checkpoints_restarts_the_world_from_a_checkpoint_exactly_once() throws Exception {
        List<Path> before = checkpointDirs();
        SimulatedPeers sim = SimulatedPeers.of(3).seed(42).checkpoints(50).losePeer(1).afterSnapshots(2).atStep(10);
        SimulatedPeers.Outcome out = sim.runAndCompare(SimulatedPeersTest::countJob);
        assertThat(out.output()).isEqualTo(expected());
        assertThat(out.losses()).singleElement().extracting(SimulatedPeers.Lost::fault).isEqualTo(new SimulatedPeers.Fault(1, 2, 10));
        assertThat(out.restarts()).hasSize(1);
        assertThat(out.log()).anyMatch(line -> line.startsWith("attempt 1: resumed from checkpoint "));
        assertThat(out.takeovers()).isEmpty();
        assertThat(checkpointDirs()).as("the simulation deleted its checkpoint directory").isEqualTo(before);
        assertNoThreadsLeft();
    }

    @Test
    void the_same_seed_gives_the_same_fault_point_and_output() {
        SimulatedPeers sim = SimulatedPeers.of(3).seed(7).replication(1, 50).losePeer(2).atSeededStep(5, 40);
        SimulatedPeers.Outcome first = sim.run(SimulatedPeersTest::countJob);
        SimulatedPeers.Outcome second = sim.run(SimulatedPeersTest::countJob);
        assertThat(first.losses()).singleElement().extracting(SimulatedPeers.Lost::fault)
                .isEqualTo(second.losses().get(0).fault()).isEqualTo(sim.faults().get(0));
        assertThat(sim.faults().get(0).step()).isBetween(5L, 40L);
        assertThat(first.output()).isEqualTo(second.output()).isEqualTo(expected());
        List<Long> steps = LongStream.range(0, 20).map(s -> sim.seed(s).faults().get(0).step()).boxed().distinct().toList();
        assertThat(steps).as("other seeds draw other steps").hasSizeGreaterThan(5);
        assertNoThreadsLeft();
    }

    @Test
    void the_schedulers_perturbation_is_a_function_of_seed_link_and_frame() {
        List<Long> a = new ArrayList<>();
        List<Long> b = new ArrayList<>();
        List<Long> other = new ArrayList<>();
        for (long n = 1; n <= 2_000; n++) {
            a.add(SimulatedPeers.perturbation(3, 0, 1, Channels.data(0), n));
            b.add(SimulatedPeers.perturbation(3, 0, 1, Channels.data(0), n));
            other.add(SimulatedPeers.perturbation(4, 0, 1, Channels.data(0), n));
        }
        assertThat(a).isEqualTo(b).isNotEqualTo(other);
        assertThat(a).contains(0L, -1L).anyMatch(p -> p > 0).allMatch(p -> p <= 300);
        assertThat(SimulatedPeers.perturbation(3, 0, 1, Channels.HEARTBEAT, 1)).isZero();
    }

    @Test
    void wrong_output_fails_the_comparison_naming_the_duplicated_and_the_missing_rows() {
        List<String> expected = List.of("[0,200) 1=16", "[0,200) 2=15", "[200,400) 1=15");
        SimulatedPeers.Outcome twice = new SimulatedPeers.Outcome(5, List.of("[0,200) 1=16", "[0,200) 1=16", "[0,200) 2=15",
                "[200,400) 1=15"), List.of(new SimulatedPeers.Lost(new SimulatedPeers.Fault(1, 2, 10), 0, 1234)), List.of(), List.of(),
                List.of("peer 1 lost at its data frame 10 after its snapshot 2 (attempt 0, network frame 1234)"));
        assertThatThrownBy(() -> twice.assertSameOutputAs(expected)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("seed 5").hasMessageContaining("1 duplicated [[0,200) 1=16]").hasMessageContaining("0 missing")
                .hasMessageContaining("peer 1 lost at its data frame 10 after its snapshot 2");
        SimulatedPeers.Outcome missing = new SimulatedPeers.Outcome(5, List.of("[0,200) 1=16", "[200,400) 1=15"), List.of(), List.of(),
                List.of(), List.of());
        assertThatThrownBy(() -> missing.assertSameOutputAs(expected)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("1 missing [[0,200) 2=15]").hasMessageContaining("2 rows against 3 expected");
        new SimulatedPeers.Outcome(5, List.of("[200,400) 1=15", "[0,200) 2=15", "[0,200) 1=16"), List.of(), List.of(), List.of(), List.of())
                .assertSameOutputAs(expected);
    }

    @Test
    void a_loss_planned_after_the_job_ends_fails_naming_the_peer_and_the_step() {
        SimulatedPeers sim = SimulatedPeers.of(3).seed(1).replication(1, 50).losePeer(1).afterSnapshots(1).atStep(1_000_000);
        assertThatThrownBy(() -> sim.run(SimulatedPeersTest::countJob)).isInstanceOf(AssertionError.class)
                .hasMessageContaining("the job ended before the planned loss (peer 1 lost at its data frame 1000000 after its snapshot 1)")
                .hasMessageContaining("peer 1 sent");
        assertThatThrownBy(() -> SimulatedPeers.of(3).losePeer(1).atStep(5).run(SimulatedPeersTest::countJob))
                .hasMessageContaining("no fault tolerance");
        assertNoThreadsLeft();
    }

    private static List<Path> checkpointDirs() throws Exception {
        try (Stream<Path> all = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return all.filter(p -> p.getFileName().toString().startsWith("air-simulated-checkpoints-")).sorted().toList();
        }
    }

    /** Every thread of the simulated peers, their transports, replicas and checkpoint writers has ended. */
    private static void assertNoThreadsLeft() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<String> alive;
        do {
            alive = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                    .filter(n -> n.startsWith("air-sim-") || n.startsWith("air-injvm-") || n.startsWith("air-replica")
                            || n.startsWith("air-heartbeat") || n.contains("/takeover-") || n.contains("checkpoint-writer"))
                    .toList();
            if (!alive.isEmpty()) {
                LockSupport.parkNanos(20_000_000L); // polls: runtime threads end just after the clusters close
            }
        } while (!alive.isEmpty() && System.nanoTime() < deadline);
        assertThat(alive).as("threads left running").isEmpty();
    }
}
