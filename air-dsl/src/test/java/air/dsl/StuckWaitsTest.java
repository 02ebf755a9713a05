package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;

import air.channels.InJvmTransports;
import air.channels.Transport;
import air.runtime.Cluster;
import air.runtime.Job;
import air.runtime.JobFailedException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Waits that once had no deadline: a peer alive but stuck (it keeps heartbeating) after the others
 * finished, and a checkpoint write that never returns, are named within a configured time instead
 * of holding the job silently.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class StuckWaitsTest {

    private static final Cluster.Options FAST = new Cluster.Options(50, 5_000, 20_000);

    @Test
    void a_peer_stuck_after_the_others_finished_is_named_within_the_finish_timeout() throws Exception {
        List<Transport> net = InJvmTransports.network(2);
        CountDownLatch release = new CountDownLatch(1);
        List<CompletableFuture<Throwable>> peers = new ArrayList<>();
        for (Transport t : net) {
            peers.add(CompletableFuture.supplyAsync(() -> {
                try (Cluster c = Cluster.over(t, FAST)) {
                    int self = c.self();
                    Pipeline p = Pipeline.create();
                    p.readFrom(Sources.fromList(LongStream.range(0, 1_000).boxed().toList()))
                            .map(i -> {
                                if (self == 1) {
                                    awaitQuietly(release); // peer 1 is alive (heartbeating) but its part never ends until released
                                }
                                return i;
                            })
                            .writeTo(Sinks.collect());
                    p.execute(config(1).name("stuck").finishTimeoutMs(1_500).cluster(c));
                    return null;
                } catch (JobFailedException e) {
                    return e;
                }
            }, r -> Thread.ofPlatform().start(r)));
        }
        try {
            Throwable zero = peers.get(0).get(30, TimeUnit.SECONDS);
            assertThat(zero).as("peer 0's part is done; peer 1 never arrives").isInstanceOf(JobFailedException.class)
                    .hasMessageContaining("waited 1500 ms to finish but peer(s) [1] never answered")
                    .hasMessageContaining("alive but stuck");
        } finally {
            release.countDown();
        }
        assertThat(peers.get(1).get(30, TimeUnit.SECONDS)).as("the stuck peer, once going again, fails too")
                .isInstanceOf(JobFailedException.class);
    }

    /** A store whose writes from the second checkpoint on block until released (a stuck NFS fsync). */
    private static final class StuckStore extends ForwardingStore {
        final CountDownLatch release = new CountDownLatch(1);

        StuckStore(Path dir) {
            super(Checkpoints.toDirectory(dir));
        }

        @Override public void write(String job, long id, long base, int peer, int peers, Map<String, byte[]> parts) throws IOException {
            if (id >= 2) {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
            }
            inner.write(job, id, base, peer, peers, parts);
        }
    }

    @Test
    void a_checkpoint_write_that_hangs_is_reported_and_counted(@TempDir Path dir) {
        StuckStore store = new StuckStore(dir);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Pipeline p = Pipeline.create();
        p.readFrom(new TestPipelines.HeldSource(10_000, 100, () -> store.release.getCount() == 0)).writeTo(Sinks.collect());
        Job job = p.submit(config(2).name("stuck-store").checkpoints(store, 10).stallReportMs(300).meterRegistry(registry));
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (slow(registry) == 0 && System.nanoTime() < deadline) {
                LockSupport.parkNanos(10_000_000); // polled: the report comes once barriers are held back past 300 ms
            }
            assertThat(slow(registry)).as("the stuck write is counted once").isEqualTo(1);
            assertThat(registry.get("air.checkpoint.write.age").gauge().value()).as("ms the write has taken").isGreaterThanOrEqualTo(300);
        } finally {
            store.release.countDown();
        }
        job.join();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static double slow(SimpleMeterRegistry registry) {
        Counter c = registry.find("air.checkpoints.slow").counter();
        return c == null ? 0 : c.count();
    }
}
