package air.dsl;

import static org.assertj.core.api.Assertions.assertThat;

import air.channels.InJvmTransports;
import air.channels.Transport;
import air.runtime.Cluster;
import air.runtime.api.CommittingSinkWriter;
import air.runtime.api.OwnerToken;
import air.runtime.api.SinkFactory;
import air.runtime.api.SinkWriter;
import air.runtime.api.SourceFactory;
import air.runtime.api.SourceReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two peers under checkpoints, one of which ends long before the other, with a two-phase-commit
 * sink that, like the Kafka exactly-once sink's pool of transactions, cannot run more than two
 * checkpoints ahead of its commits: the peer that ended takes no checkpoints of its own, so unless
 * it stands in for the others' with its last states they never complete, the other peer's sink
 * waits for commits that never come, and the job never ends (before: it failed after the sink's
 * wait, "commits stalled").
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class FinalCheckpointPeersTest {

    private static final long SHORT = 100;
    private static final long LONG = 10_000;

    @TempDir
    Path dir;

    /** Instance 0 (peer 0) emits {@link #SHORT} numbers, instance 1 (peer 1) {@link #LONG}, 100 per read with a pause between. */
    private record UnevenSource() implements SourceFactory<Long> {
        @Override
        public SourceReader<Long> createReader(int instance, int parallelism) {
            long base = instance * 1_000_000L;
            return new TestPipelines.CountingReader(instance == 0 ? SHORT : LONG) {
                @Override
                long until() {
                    LockSupport.parkNanos(1_000_000); // a while per read: instance 1 runs long after instance 0 ended
                    return position + 100;
                }

                @Override
                long valueAt(long p) {
                    return base + p;
                }
            };
        }

        @Override
        public String describe() {
            return "uneven source";
        }
    }

    /** What every writer committed, in the order commits came. */
    private static final ConcurrentLinkedQueue<Long> COMMITTED = new ConcurrentLinkedQueue<>();

    /** A writer whose rows become visible on commit, and which waits while two snapshots are not committed yet. */
    private static final class PooledWriter implements CommittingSinkWriter<Long> {
        private final TreeMap<Long, List<Long>> pending = new TreeMap<>();
        private List<Long> current = new ArrayList<>();
        private boolean claimed;

        @Override
        public void claim(OwnerToken owner) {
            claimed = true;
        }

        @Override
        public void write(Long item) {
            synchronized (pending) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (pending.size() >= 2) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        throw new IllegalStateException("commits stalled: " + pending.keySet() + " pre-committed, none committed");
                    }
                    try {
                        pending.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("interrupted", e);
                    }
                }
            }
            current.add(item);
        }

        @Override
        public byte[] snapshot(long checkpointId) {
            synchronized (pending) {
                if (!current.isEmpty()) {
                    pending.put(checkpointId, current);
                    current = new ArrayList<>();
                }
            }
            return new byte[0];
        }

        @Override
        public void commit(long checkpointId) {
            synchronized (pending) {
                Map<Long, List<Long>> due = pending.headMap(checkpointId, true);
                due.values().forEach(COMMITTED::addAll);
                due.clear();
                pending.notifyAll();
            }
        }

        @Override
        public void restore(byte[] state) {
            // no failure in this test
        }

        @Override
        public void close() {
            synchronized (pending) {
                assertThat(!claimed || pending.isEmpty() && current.isEmpty()).as("the final checkpoint committed everything first")
                        .isTrue();
                pending.values().forEach(COMMITTED::addAll);
                COMMITTED.addAll(current);
            }
        }
    }

    private record PooledSink() implements SinkFactory<Long> {
        @Override
        public SinkWriter<Long> open(int instance, int parallelism) {
            return new PooledWriter();
        }

        @Override
        public String describe() {
            return "pooled two-phase sink";
        }
    }

    @Test
    void a_peer_that_ended_early_lets_the_others_checkpoints_complete_and_the_job_end_with_every_row_committed_once() throws Exception {
        COMMITTED.clear();
        List<Transport> net = InJvmTransports.network(2);
        List<CompletableFuture<Void>> peers = new ArrayList<>();
        for (int peer = 0; peer < 2; peer++) {
            int self = peer;
            peers.add(CompletableFuture.runAsync(() -> {
                Pipeline p = Pipeline.create();
                p.readFrom(new UnevenSource()).writeTo(new PooledSink());
                try (Cluster c = Cluster.over(net.get(self), new Cluster.Options(50, 5_000, 20_000))) {
                    p.execute(TestPipelines.config(1).checkpoints(Checkpoints.toDirectory(dir), 20).cluster(c));
                }
            }, r -> Thread.ofPlatform().daemon().start(r)));
        }
        for (CompletableFuture<Void> f : peers) {
            f.get(80, TimeUnit.SECONDS);
        }
        List<Long> want = new ArrayList<>();
        for (long i = 0; i < SHORT; i++) {
            want.add(i);
        }
        for (long i = 0; i < LONG; i++) {
            want.add(1_000_000L + i);
        }
        assertThat(new ArrayList<>(COMMITTED)).hasSize(want.size()).containsExactlyInAnyOrderElementsOf(want);
    }
}
