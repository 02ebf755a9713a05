package air.samples.ysb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.channels.Channels;
import air.channels.InJvmTransports;
import air.channels.Transport;
import air.runtime.Cluster;
import air.test.InJvmPeers;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Cluster mode with every peer inside this JVM (in-JVM transports): the same code path as MPJ
 * peers minus the processes, so routing and progress across peers are checked in the fast suite.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class YsbInJvmPeersTest {

    private static final Cluster.Options FAST = new Cluster.Options(50, 5_000, 20_000);

    /** Runs {@code argv} on {@code peers} in-JVM peers (the test kit's) and merges their rows as rank 0 would. */
    private static YsbRows runOnPeers(int peers, String... argv) {
        YsbArgs args = YsbArgs.parse(argv);
        return YsbRows.merge(InJvmPeers.run(peers, Duration.ofSeconds(100), cluster -> {
            YsbRun.Outcome o = YsbRun.run(args, null, cluster);
            return YsbRows.decode(o.rows().encode(0), cluster.self());
        }));
    }

    @ParameterizedTest(name = "peers={0} workers={1} routing={2} progress={3}")
    @CsvSource({"2,1,KEY,watermark", "2,1,AIR,hewmeld", "2,2,KEY,hewmeld", "3,1,AIR,watermark", "3,2,AIR,hewmeld", "4,1,KEY,watermark"})
    void ysb_over_in_jvm_peers_matches_the_reference(int peers, int workers, String routing, String progress, @TempDir Path dir)
            throws Exception {
        YsbRows rows = runOnPeers(peers, "5M", Integer.toString(workers), "--routing", routing, "--progress", progress);
        assertThat(rows.views()).isEqualTo(1_667_184);
        assertThat(rows.writeCanonical(dir.resolve("ysb.csv"))).isEqualTo("918c079abd661bab8445c17beef6f9bfdec2492356713c80f4c1895a67855871");
    }

    @Test
    void garbage_on_a_shuffle_channel_fails_the_job_on_every_peer_naming_the_sender() throws Exception {
        List<Transport> net = InJvmTransports.network(2);
        // a frame that passes the transport's checks but is not a shuffle item: the decoder must reject it
        net.get(1).send(0, Channels.data(0), ByteBuffer.wrap(new byte[] {9, 0, 0}));
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (int rank = 0; rank < 2; rank++) {
            Transport t = net.get(rank);
            runs.add(CompletableFuture.runAsync(() -> {
                try (Cluster cluster = Cluster.over(t, FAST)) {
                    YsbRun.run(YsbArgs.parse("1M", "1"), null, cluster);
                }
            }, r -> Thread.ofPlatform().start(r)));
        }
        assertThatThrownBy(() -> runs.get(0).get(60, TimeUnit.SECONDS)).hasMessageContaining("malformed frame from peer 1");
        assertThatThrownBy(() -> runs.get(1).get(60, TimeUnit.SECONDS)).hasMessageContaining("peer 0 failed")
                .hasMessageContaining("malformed frame from peer 1");
    }

    @Test
    void peers_that_built_different_plans_refuse_to_run_and_show_the_difference() throws Exception {
        List<Transport> net = InJvmTransports.network(2);
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (int rank = 0; rank < 2; rank++) {
            Transport t = net.get(rank);
            String routing = rank == 0 ? "KEY" : "AIR";
            runs.add(CompletableFuture.runAsync(() -> {
                try (Cluster cluster = Cluster.over(t, FAST)) {
                    YsbRun.run(YsbArgs.parse("100K", "1", "--routing", routing), null, cluster);
                }
            }, r -> Thread.ofPlatform().start(r)));
        }
        for (int rank = 0; rank < 2; rank++) {
            int r = rank;
            assertThatThrownBy(() -> runs.get(r).get(60, TimeUnit.SECONDS))
                    .hasMessageContaining("plan mismatch")
                    .hasMessageContaining("routing=KEY")
                    .hasMessageContaining("routing=AIR")
                    .hasMessageContaining("peer " + (1 - r) + " built a different pipeline");
        }
    }
}
