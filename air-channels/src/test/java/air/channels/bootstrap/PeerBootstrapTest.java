package air.channels.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.channels.Channels;
import air.channels.Frame;
import air.channels.MeshAuth;
import air.channels.tcp.TcpTransport;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/** Opening what a {@link WorldSpec} says, over TCP (MPJ allows one world per JVM: its IT starts processes). */
class PeerBootstrapTest {

    private static final String[] ARGS = {"400M", "1"};

    /** Every rank's {@link PeerBootstrap#join} at once (each blocks until all have met). */
    private static List<JoinedPeer> joinAll(int peers, IntFunction<Map<String, String>> envOf) {
        List<CompletableFuture<JoinedPeer>> joining = new ArrayList<>();
        for (int r = 0; r < peers; r++) {
            Map<String, String> env = envOf.apply(r);
            joining.add(CompletableFuture.supplyAsync(() -> PeerBootstrap.join(ARGS, env, 20_000),
                    task -> Thread.ofVirtual().start(task)));
        }
        return joining.stream().map(CompletableFuture::join).toList();
    }

    private static void exchange(List<JoinedPeer> world) throws InterruptedException {
        int peers = world.size();
        for (JoinedPeer p : world) {
            assertThat(p.transport()).isInstanceOf(TcpTransport.class);
            assertThat(p.transport().peers()).isEqualTo(peers);
            assertThat(p.transport().survivesPeerLoss()).isTrue();
            assertThat(p.userArgs()).containsExactly(ARGS);
            int to = (p.transport().self() + 1) % peers;
            p.transport().send(to, Channels.data(0), ByteBuffer.wrap(new byte[] {(byte) p.transport().self()}));
        }
        for (JoinedPeer p : world) {
            Frame f = p.transport().receive(Channels.data(0), Duration.ofSeconds(10));
            assertThat(f).isNotNull();
            assertThat(f.peer()).isEqualTo((p.transport().self() + peers - 1) % peers);
        }
    }

    private static void leave(List<JoinedPeer> world) {
        for (JoinedPeer p : world) {
            p.transport().close();
            p.leave();
        }
    }

    @Test
    void launcher_peers_meet_over_tcp_at_the_launchers_rendezvous() throws Exception {
        try (Rendezvous rv = Rendezvous.onLoopback(3)) {
            rv.serveInBackground(20_000, e -> { });
            List<JoinedPeer> world = joinAll(3, r -> {
                Map<String, String> env = new HashMap<>(PeerEnvironment.variables(r, 3, "127.0.0.1", rv.port()));
                env.put(PeerEnvironment.TRANSPORT, "tcp");
                return env;
            });
            try {
                assertThat(world).extracting(p -> p.transport().self()).containsExactly(0, 1, 2);
                assertThat(world).extracting(p -> p.spec().start()).containsOnly(WorldSpec.Start.LAUNCHER);
                exchange(world);
            } finally {
                leave(world);
            }
        }
    }

    @Test
    void under_srun_rank_0_serves_the_rendezvous_itself() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        List<JoinedPeer> world = joinAll(2, r -> Map.of("SLURM_PROCID", Integer.toString(r), "SLURM_NTASKS", "2",
                "AIR_RENDEZVOUS", "127.0.0.1:" + port, "AIR_TRANSPORT", "tcp"));
        try {
            assertThat(world.get(0).spec().servesRendezvous()).isTrue();
            assertThat(world.get(1).spec().servesRendezvous()).isFalse();
            exchange(world);
        } finally {
            leave(world);
        }
    }

    @Test
    void a_tcp_peer_that_meets_nobody_says_where_it_looked() {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> env = new HashMap<>(PeerEnvironment.variables(1, 2, "127.0.0.1", port));
        env.put(PeerEnvironment.TRANSPORT, "tcp");
        assertThatThrownBy(() -> PeerBootstrap.join(ARGS, env, 300))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageStartingWith("peer 1 could not join the TCP mesh through the rendezvous at 127.0.0.1:" + port + ": ");
    }

    @Test
    void an_unusable_bind_address_is_reported() {
        Map<String, String> env = new HashMap<>(PeerEnvironment.variables(0, 1, "127.0.0.1", 1));
        env.put(PeerEnvironment.TRANSPORT, "tcp");
        env.put(PeerEnvironment.BIND, "no-such-host.invalid");
        assertThatThrownBy(() -> PeerBootstrap.join(ARGS, env, 300))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("AIR_BIND=no-such-host.invalid does not resolve");
    }

    @Test
    void a_peer_on_a_non_loopback_address_without_a_secret_refuses_to_start_saying_how_to_set_one() {
        for (String bind : List.of("0.0.0.0", "10.231.0.1")) {
            Map<String, String> env = new HashMap<>(PeerEnvironment.variables(0, 2, "127.0.0.1", 1));
            env.put(PeerEnvironment.TRANSPORT, "tcp");
            env.put(PeerEnvironment.BIND, bind);
            assertThatThrownBy(() -> PeerBootstrap.join(ARGS, env, 300))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("AIR_BIND=" + bind + " opens this peer's sockets")
                    .hasMessageContaining("no mesh secret is set")
                    .hasMessageContaining("AIR_SECRET=$(openssl rand -hex 32)")
                    .hasMessageContaining("AIR_SECRET_FILE=")
                    .hasMessageContaining("AIR_INSECURE=1");
            env.put(BindGuard.INSECURE, "0"); // only a yes opts out
            assertThatThrownBy(() -> PeerBootstrap.join(ARGS, env, 300)).hasMessageContaining("no mesh secret is set");
        }
    }

    @Test
    void loopback_a_secret_or_air_insecure_lets_a_peer_start_and_the_opt_out_is_logged_at_warn() {
        assertThat(BindGuard.check(null, MeshAuth.NONE, Map.of())).isNull();
        assertThat(BindGuard.check("127.0.0.1", MeshAuth.NONE, Map.of())).isNull();
        assertThat(BindGuard.check("localhost", MeshAuth.NONE, Map.of())).isNull();
        assertThat(BindGuard.check("0.0.0.0", MeshAuth.of("s3cret"), Map.of())).isNull();
        // opted out: past the guard (over MPJ, which is not on this module's class path, so nothing listens), with a WARN line
        Map<String, String> env = new HashMap<>(PeerEnvironment.variables(0, 2, "127.0.0.1", 1));
        env.put(PeerEnvironment.BIND, "0.0.0.0");
        env.put(BindGuard.INSECURE, "1");
        PrintStream err = System.err;
        ByteArrayOutputStream said = new ByteArrayOutputStream();
        System.setErr(new PrintStream(said, true, StandardCharsets.UTF_8));
        try {
            assertThatThrownBy(() -> PeerBootstrap.join(ARGS, env, 300)).hasMessageContaining("the MPJ transport is not on the class path");
        } finally {
            System.setErr(err);
        }
        assertThat(said.toString(StandardCharsets.UTF_8)).contains("WARN").contains("AIR_INSECURE=1: this peer listens on AIR_BIND=0.0.0.0 "
                + "without a mesh secret");
    }

    @Test
    void mpjrun_hands_the_secret_file_in_as_a_system_property_and_the_environment_wins() {
        assertThat(PeerEnvironment.withSecretFile(Map.of(), "/s", false)).containsEntry(MeshAuth.SECRET_FILE, "/s")
                .doesNotContainKey(MeshAuth.SECRET_PER_RUN);
        assertThat(PeerEnvironment.withSecretFile(Map.of(), "/s", true)).as("a secret mpjrun made for this run alone")
                .containsEntry(MeshAuth.SECRET_FILE, "/s").containsEntry(MeshAuth.SECRET_PER_RUN, "1");
        assertThat(PeerEnvironment.withSecretFile(Map.of(), null, true)).isEmpty();
        assertThat(PeerEnvironment.withSecretFile(Map.of(MeshAuth.SECRET, "x"), "/s", true)).doesNotContainKey(MeshAuth.SECRET_FILE);
        assertThat(PeerEnvironment.withSecretFile(Map.of(MeshAuth.SECRET_FILE, "/mine"), "/s", true)).containsEntry(MeshAuth.SECRET_FILE, "/mine")
                .doesNotContainKey(MeshAuth.SECRET_PER_RUN);
    }

    @Test
    void a_quiet_mpj_home_holds_the_conf_mpj_reads() throws Exception {
        Path home = QuietMpjHome.create();
        try {
            assertThat(QuietMpjHome.hasConf(home.toString())).isTrue();
            assertThat(QuietMpjHome.hasConf(null)).isFalse();
            assertThat(QuietMpjHome.hasConf(home.resolve("nothing").toString())).isFalse();
        } finally {
            QuietMpjHome.delete(home);
        }
    }

    @Test
    void a_rank_that_does_not_serve_the_rendezvous_waits_until_it_listens_and_names_it_when_it_never_does() throws Exception {
        try (ServerSocket listening = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            WorldSpec spec = WorldSpec.of(ARGS, Map.of("SLURM_PROCID", "1", "SLURM_NTASKS", "2", "AIR_TRANSPORT", "mpj",
                    "AIR_RENDEZVOUS", "127.0.0.1:" + listening.getLocalPort()));
            PeerBootstrap.awaitRendezvous(spec, 5_000); // returns: it accepts
        }
        int closed;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = s.getLocalPort(); // nothing listens there once closed
        }
        WorldSpec spec = WorldSpec.of(ARGS, Map.of("SLURM_PROCID", "1", "SLURM_NTASKS", "2", "AIR_TRANSPORT", "mpj",
                "AIR_RENDEZVOUS", "127.0.0.1:" + closed));
        assertThatThrownBy(() -> PeerBootstrap.awaitRendezvous(spec, 300)).hasMessageContaining("rank 1: the rendezvous at")
                .hasMessageContaining(":" + closed).hasMessageContaining("did not accept a connection within 300 ms");
    }
}
