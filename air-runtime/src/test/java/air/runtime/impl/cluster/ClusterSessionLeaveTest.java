package air.runtime.impl.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.channels.Channels;
import air.channels.ForwardingTransport;
import air.channels.Frame;
import air.channels.MeshAuth;
import air.channels.Transport;
import air.channels.tcp.TcpTransport;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Peers of one JVM over AIR's TCP transport on loopback, one finishing before another: a peer
 * that finished and closed its session leaves; it is never suspected for the end of its
 * connections by a peer still finishing. Peer 0 never reads peer 1's heartbeat goodbye here (a
 * heartbeat reader that lags behind the end of the data lane: the race a 4-peer job lost at its
 * very end, "peer 1 suspected: its link broke (peer 1 closed the connection)").
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClusterSessionLeaveTest {

    private static final long HEARTBEAT_MS = 100;
    private static final long FAILURE_TIMEOUT_MS = 1_000;
    private static final long STARTUP_MS = 20_000;

    private final List<ClusterSession> sessions = new ArrayList<>();

    @AfterEach
    void closeAll() {
        sessions.forEach(ClusterSession::close);
    }

    /** A world of {@code peers} sessions, rank i at index i; peer 0 never reads a heartbeat goodbye from peer 1. */
    private List<ClusterSession> world(int peers) throws Exception {
        List<TcpTransport> net = TcpTransport.onLoopback(peers, STARTUP_MS);
        List<CompletableFuture<ClusterSession>> starting = new ArrayList<>();
        for (int p = 0; p < peers; p++) {
            Transport t = p == 0 ? new WithoutHeartbeatGoodbye(net.get(p), 1) : net.get(p);
            starting.add(CompletableFuture.supplyAsync(() -> new ClusterSession(t, HEARTBEAT_MS, FAILURE_TIMEOUT_MS, STARTUP_MS, null,
                    "127.0.0.1", MeshAuth.NONE), r -> Thread.ofVirtual().start(r))); // each meets the others in its constructor
        }
        for (CompletableFuture<ClusterSession> s : starting) {
            sessions.add(s.get(30, TimeUnit.SECONDS));
        }
        return sessions;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void a_peer_that_finished_and_left_is_not_suspected_by_one_still_gathering() throws Exception {
        List<ClusterSession> peers = world(3);
        CompletableFuture<List<byte[]>> gathered = CompletableFuture.supplyAsync(() -> {
            try {
                return peers.get(0).gather(bytes("zero"), ClusterSession.Patience.UNBOUNDED);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, r -> Thread.ofVirtual().start(r));
        // not the gathering peer: sends its part and is done
        assertThat(peers.get(1).gather(bytes("one"), ClusterSession.Patience.UNBOUNDED)).isEmpty();
        peers.get(1).close(); // it leaves at once, while peer 0 still waits for peer 2
        Thread.sleep(2 * FAILURE_TIMEOUT_MS); // long past the end of peer 1's links, and past the failure timeout
        assertThat(gathered).as("peer 0 still gathering").isNotDone();
        assertThat(peers.get(2).gather(bytes("two"), ClusterSession.Patience.UNBOUNDED)).isEmpty();
        List<byte[]> all = gathered.get(20, TimeUnit.SECONDS);
        assertThat(all).extracting(b -> new String(b, StandardCharsets.UTF_8)).containsExactly("zero", "one", "two");
        assertThat(peers.get(0).view().contains(1)).as("no view removed the peer that left").isTrue();
        assertThat(peers.get(0).hasLeft(1)).isTrue();
        assertThat(peers.get(0).isGone(1)).isFalse();
    }

    @Test
    void a_wait_for_a_peer_that_left_without_taking_part_fails_at_once() throws Exception {
        List<ClusterSession> peers = world(3);
        peers.get(1).close(); // leaves without sending its part
        CompletableFuture<Void> two = CompletableFuture.runAsync(() -> {
            try {
                peers.get(2).gather(bytes("two"), ClusterSession.Patience.UNBOUNDED);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThatThrownBy(() -> peers.get(0).gather(bytes("zero"), ClusterSession.Patience.UNBOUNDED)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("peer(s) [1] left the cluster");
        two.get(20, TimeUnit.SECONDS);
    }

    @Test
    void a_peer_that_leaves_while_the_job_still_runs_here_is_lost() throws Exception {
        List<ClusterSession> peers = world(2);
        List<String> failures = new CopyOnWriteArrayList<>();
        List<CompletableFuture<Long>> begun = new ArrayList<>();
        for (ClusterSession s : peers) {
            // what peer 0 says: peer 1, closing, may first see its own links end ("peer 0 lost") before it stops listening
            boolean watched = s == peers.get(0);
            begun.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return s.beginJob("plan", new ClusterSession.JobFailures() {
                        @Override
                        public void failed(String why) {
                            if (watched) {
                                failures.add(why);
                            }
                        }

                        @Override
                        public void fenced(String why) {
                            if (watched) {
                                failures.add("fenced: " + why);
                            }
                        }
                    }, false);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }, r -> Thread.ofVirtual().start(r)));
        }
        for (CompletableFuture<Long> b : begun) {
            b.get(20, TimeUnit.SECONDS);
        }
        peers.get(1).close(); // its part of the job never ends: peer 0 must not wait for it
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (failures.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(failures).isNotEmpty().first().asString().contains("peer 1 lost").contains("left the cluster");
    }

    /** A transport that drops {@code peer}'s heartbeat goodbye: its reader never gets to it before the links end. */
    private static final class WithoutHeartbeatGoodbye extends ForwardingTransport {

        private final int peer;

        WithoutHeartbeatGoodbye(Transport inner, int peer) {
            super(inner);
            this.peer = peer;
        }

        @Override
        public Frame receive(int channel, Duration timeout) throws InterruptedException {
            Frame f = delegate.receive(channel, timeout);
            if (f != null && channel == Channels.HEARTBEAT && f.peer() == peer && f.payload().remaining() > 0
                    && f.payload().get(f.payload().position()) == PeerMonitor.BYE) {
                return null;
            }
            return f;
        }
    }
}
