package air.test;

import air.channels.InJvmTransports;
import air.channels.Transport;
import air.runtime.Cluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Several AIR peers in one JVM, over the in-JVM transport: each runs {@code job} with its own
 * {@link Cluster} (as {@code main} would after {@code Cluster.join(args)}) on its own thread, so a
 * test sees what a cluster run does — shuffles across peers, the plan agreement, a peer's
 * failure failing every peer — without starting processes. Bounded: every peer must end within
 * the timeout, and every thread the run started has ended when it returns.
 */
public final class InJvmPeers {

    /** What one peer runs. */
    @FunctionalInterface
    public interface PeerJob<R> {
        R run(Cluster cluster) throws Exception;
    }

    /** Heartbeats every 50 ms, a peer silent for 5 s lost, 20 s to start: quick for tests. */
    public static final Cluster.Options OPTIONS = new Cluster.Options(50, 5_000, 20_000);

    private InJvmPeers() {
    }

    /** {@link #run(int, Duration, PeerJob)} within a minute. */
    public static <R> List<R> run(int peers, PeerJob<R> job) {
        return run(peers, Duration.ofMinutes(1), job);
    }

    /**
     * Runs {@code job} on {@code peers} peers; returns each peer's result in rank order, or throws
     * {@link AssertionError} naming the first peer (by rank) that failed or did not end in time.
     */
    public static <R> List<R> run(int peers, Duration timeout, PeerJob<R> job) {
        if (peers < 1) {
            throw new IllegalArgumentException("InJvmPeers.run: peers must be >= 1, was " + peers);
        }
        List<Transport> net = InJvmTransports.network(peers);
        List<CompletableFuture<R>> parts = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (Transport t : net) {
            CompletableFuture<R> part = new CompletableFuture<>();
            parts.add(part);
            threads.add(Thread.ofPlatform().name("air-test-peer-" + t.self()).start(() -> {
                try (Cluster c = Cluster.over(t, OPTIONS)) {
                    part.complete(job.run(c));
                } catch (Throwable e) {
                    part.completeExceptionally(e);
                }
            }));
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        List<R> results = new ArrayList<>();
        AssertionError failure = null;
        for (int r = 0; r < peers; r++) {
            try {
                results.add(parts.get(r).get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            } catch (ExecutionException e) {
                failure = failure != null ? failure : new AssertionError("peer " + r + " of " + peers + " failed: " + e.getCause(), e.getCause());
            } catch (TimeoutException e) {
                failure = failure != null ? failure : new AssertionError("peer " + r + " of " + peers + " did not end within " + timeout);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while peers ran", e);
            }
        }
        for (Thread t : threads) {
            if (failure != null) {
                t.interrupt();
            }
            try {
                t.join(TimeUnit.SECONDS.toMillis(10));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (failure != null) {
            throw failure;
        }
        return results;
    }
}
