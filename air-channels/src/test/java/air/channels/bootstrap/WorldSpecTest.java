package air.channels.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.channels.bootstrap.WorldSpec.Endpoint;
import air.channels.bootstrap.WorldSpec.Start;
import air.channels.bootstrap.WorldSpec.TransportKind;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How args and environment become a {@link WorldSpec}: every start mode, every refusal, nothing started. */
class WorldSpecTest {

    private static final String[] MPJRUN = {"3", "/tmp/mpj-1234.conf", "niodev", "400M", "1"};
    private static final String[] PLAIN = {"400M", "1"};

    private static Map<String, String> env(String... kv) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private static Map<String, String> launcher(String... more) {
        Map<String, String> m = env("AIR_RANK", "1", "AIR_PEERS", "4", "AIR_RENDEZVOUS", "127.0.0.1:5555");
        m.putAll(env(more));
        return m;
    }

    private static Map<String, String> slurm(String rank, String... more) {
        Map<String, String> m = env("SLURM_PROCID", rank, "SLURM_NTASKS", "4", "AIR_RENDEZVOUS", "node7:7700");
        m.putAll(env(more));
        return m;
    }

    // --- mpjrun

    @Test
    void mpjrun_arguments_are_recognised_and_split_from_the_programs_own() {
        WorldSpec s = WorldSpec.of(MPJRUN, env("MPJ_HOME", "/opt/mpj", "AIR_BIND", "10.0.0.5"));
        assertThat(s.start()).isEqualTo(Start.MPJRUN);
        assertThat(s.transport()).isEqualTo(TransportKind.MPJ);
        assertThat(s.rank()).isEqualTo(3);
        assertThat(s.peers()).isEqualTo(WorldSpec.PEERS_FROM_MPJ);
        assertThat(s.rendezvous()).isNull();
        assertThat(s.servesRendezvous()).isFalse();
        assertThat(s.mpjrunArgs()).containsExactly("3", "/tmp/mpj-1234.conf", "niodev");
        assertThat(s.userArgs()).containsExactly("400M", "1");
        assertThat(s.mpjInitArgs()).containsExactly(MPJRUN);
        assertThat(s.bind()).isEqualTo("10.0.0.5");
        assertThat(s.mpjHome()).isEqualTo("/opt/mpj");
        assertThat(s.describe()).isEqualTo("via mpjrun, device niodev");
    }

    @Test
    void mpjrun_wins_over_a_peer_environment() {
        assertThat(WorldSpec.of(MPJRUN, launcher()).start()).isEqualTo(Start.MPJRUN);
        assertThat(WorldSpec.of(MPJRUN, slurm("0")).start()).isEqualTo(Start.MPJRUN);
    }

    @Test
    void only_rank_conf_device_looks_like_mpjrun() {
        assertThat(WorldSpec.looksLikeMpjrun(MPJRUN)).isTrue();
        assertThat(WorldSpec.looksLikeMpjrun(new String[] {"0", "conf", "native"})).isTrue();
        assertThat(WorldSpec.looksLikeMpjrun(new String[] {"0", "conf", "mxdev"})).isTrue();
        assertThat(WorldSpec.looksLikeMpjrun(PLAIN)).isFalse();
        assertThat(WorldSpec.looksLikeMpjrun(new String[0])).isFalse();
        assertThat(WorldSpec.looksLikeMpjrun(new String[] {"0", "conf"})).isFalse();
        assertThat(WorldSpec.looksLikeMpjrun(new String[] {"x", "conf", "niodev"})).isFalse();
        assertThat(WorldSpec.looksLikeMpjrun(new String[] {"400", "1", "--peers"})).isFalse();
        assertThat(WorldSpec.startedAsPeer(MPJRUN, Map.of())).isTrue();
    }

    @Test
    void tcp_under_mpjrun_is_refused_and_a_replicated_job_gets_mpj_which_refuses_it() {
        assertThatThrownBy(() -> WorldSpec.of(MPJRUN, env("AIR_TRANSPORT", "tcp")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("AIR_TRANSPORT=tcp needs peers started by './air ... --peers K' or srun "
                        + "(AIR_RANK/AIR_PEERS/AIR_RENDEZVOUS); under mpjrun the transport is MPJ Express");
        assertThat(WorldSpec.of(MPJRUN, env("AIR_TRANSPORT", "mpj")).transport()).isEqualTo(TransportKind.MPJ);
        // replication refuses MPJ, which does not survive a peer's death: air-mpj's MpjExpressTest checks it says so
    }

    @Test
    void a_rank_mpjrun_cannot_pass_is_named() {
        assertThatThrownBy(() -> WorldSpec.of(new String[] {"99999999999", "conf", "niodev"}, Map.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("mpjrun's first argument must be this peer's rank, was '99999999999'");
    }

    // --- the local launcher's AIR_* variables

    @Test
    void the_launchers_variables_give_a_daemonless_mpj_peer() {
        WorldSpec s = WorldSpec.of(PLAIN, launcher());
        assertThat(s.start()).isEqualTo(Start.LAUNCHER);
        assertThat(s.transport()).isEqualTo(TransportKind.MPJ);
        assertThat(s.rank()).isEqualTo(1);
        assertThat(s.peers()).isEqualTo(4);
        assertThat(s.rendezvous()).isEqualTo(new Endpoint("127.0.0.1", 5555));
        assertThat(s.servesRendezvous()).isFalse();
        assertThat(s.bind()).isNull();
        assertThat(s.mpjHome()).isNull();
        assertThat(s.mpjrunArgs()).isEmpty();
        assertThat(s.userArgs()).containsExactly("400M", "1");
        assertThat(s.mpjInitArgs()).containsExactly("1",
                "#Number of Processes;4;#Protocol Switch Limit;131072;#Server Name;127.0.0.1;#Server Port;5555", "niodev");
        assertThat(s.describe()).isEqualTo("niodev, daemon-less, rank 1 of 4, rendezvous 127.0.0.1:5555");
        assertThat(WorldSpec.startedAsPeer(PLAIN, launcher())).isTrue();
    }

    @Test
    void what_a_launcher_sets_is_what_the_bootstrap_reads() {
        WorldSpec s = WorldSpec.of(PLAIN, PeerEnvironment.variables(2, 3, "127.0.0.1", 41000));
        assertThat(List.of(s.rank(), s.peers(), s.rendezvous().port())).containsExactly(2, 3, 41000);
        assertThat(s.rendezvous().host()).isEqualTo("127.0.0.1");
    }

    @Test
    void numbers_may_carry_blanks_and_the_host_may_be_ipv6() {
        WorldSpec s = WorldSpec.of(PLAIN, env("AIR_RANK", " 0", "AIR_PEERS", "2 ", "AIR_RENDEZVOUS", "::1:6000"));
        assertThat(s.rank()).isZero();
        assertThat(s.peers()).isEqualTo(2);
        assertThat(s.rendezvous()).isEqualTo(new Endpoint("::1", 6000));
    }

    @Test
    void air_rank_wins_over_slurm_so_the_launcher_works_inside_an_allocation() {
        WorldSpec s = WorldSpec.of(PLAIN, launcher("SLURM_PROCID", "0", "SLURM_NTASKS", "1"));
        assertThat(s.start()).isEqualTo(Start.LAUNCHER);
        assertThat(s.rank()).isEqualTo(1);
        assertThat(s.peers()).isEqualTo(4);
        assertThat(s.servesRendezvous()).isFalse();
    }

    // --- Slurm

    @Test
    void under_srun_ranks_come_from_slurm_and_rank_0_serves_the_rendezvous() {
        WorldSpec zero = WorldSpec.of(PLAIN, slurm("0", "AIR_BIND", "0.0.0.0"));
        assertThat(zero.start()).isEqualTo(Start.SLURM);
        assertThat(zero.rank()).isZero();
        assertThat(zero.peers()).isEqualTo(4);
        assertThat(zero.rendezvous()).isEqualTo(new Endpoint("node7", 7700));
        assertThat(zero.servesRendezvous()).isTrue();
        assertThat(zero.bind()).isEqualTo("0.0.0.0");
        WorldSpec two = WorldSpec.of(PLAIN, slurm("2"));
        assertThat(two.rank()).isEqualTo(2);
        assertThat(two.servesRendezvous()).isFalse();
        assertThat(two.bind()).isNull();
    }

    @Test
    void srun_without_a_rendezvous_is_no_peer() {
        Map<String, String> plainSrun = env("SLURM_PROCID", "0", "SLURM_NTASKS", "4");
        assertThat(WorldSpec.startedAsPeer(PLAIN, plainSrun)).isFalse();
        assertThatThrownBy(() -> WorldSpec.of(PLAIN, plainSrun))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("this JVM was not started as a cluster peer: no mpjrun arguments and no AIR_RANK/AIR_RENDEZVOUS "
                        + "(or SLURM_PROCID) in the environment; start peers with './air ... --peers K', srun or mpjrun "
                        + "(see docs/operations.md, Cluster mode)")
                .hasMessageEndingWith("(SLURM_PROCID=0 is set but AIR_RENDEZVOUS is not)");
    }

    @Test
    void slurm_and_air_peers_that_disagree_are_refused_naming_both() {
        assertThat(WorldSpec.of(PLAIN, slurm("1", "AIR_PEERS", "4")).peers()).isEqualTo(4);
        assertThatThrownBy(() -> WorldSpec.of(PLAIN, slurm("1", "AIR_PEERS", "3")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("AIR_PEERS=3 contradicts SLURM_NTASKS=4");
    }

    @Test
    void missing_slurm_ntasks_is_named() {
        assertThatThrownBy(() -> WorldSpec.of(PLAIN, env("SLURM_PROCID", "1", "AIR_RENDEZVOUS", "node7:7700")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("SLURM_NTASKS must be set too, got SLURM_PROCID=1 and AIR_RENDEZVOUS=node7:7700 but no SLURM_NTASKS");
    }

    // --- no peer, or a setting that cannot be used

    @Test
    void no_variables_is_no_peer_and_join_says_how_to_start_peers() {
        assertThat(WorldSpec.startedAsPeer(PLAIN, Map.of())).isFalse();
        assertThatThrownBy(() -> WorldSpec.of(PLAIN, Map.of()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("this JVM was not started as a cluster peer: no mpjrun arguments and no AIR_RANK/AIR_RENDEZVOUS "
                        + "(or SLURM_PROCID) in the environment; start peers with './air ... --peers K', srun or mpjrun "
                        + "(see docs/operations.md, Cluster mode)");
    }

    @Test
    void half_a_peer_environment_names_what_is_there_and_what_is_missing() {
        assertThatThrownBy(() -> WorldSpec.of(PLAIN, env("AIR_RANK", "2", "AIR_PEERS", "4")))
                .isInstanceOf(IllegalStateException.class).hasMessageEndingWith("(AIR_RANK=2 is set but AIR_RENDEZVOUS is not)");
        assertThatThrownBy(() -> WorldSpec.of(PLAIN, env("AIR_RENDEZVOUS", "h:1")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageEndingWith("(AIR_RENDEZVOUS=h:1 is set but neither AIR_RANK nor SLURM_PROCID)");
    }

    @Test
    void missing_air_peers_is_named() {
        assertThatThrownBy(() -> WorldSpec.of(PLAIN, env("AIR_RANK", "1", "AIR_RENDEZVOUS", "127.0.0.1:5555")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("AIR_PEERS must be set too, got AIR_RANK=1 and AIR_RENDEZVOUS=127.0.0.1:5555 but no AIR_PEERS");
        assertThatThrownBy(() -> WorldSpec.startedAsPeer(PLAIN, env("AIR_RANK", "1", "AIR_RENDEZVOUS", "127.0.0.1:5555")))
                .hasMessageStartingWith("AIR_PEERS must be set too");
    }

    @Test
    void unusable_values_are_named_with_the_variable() {
        assertThatThrownBy(() -> WorldSpec.of(PLAIN, launcher("AIR_RANK", "one")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("AIR_RANK must be a number, was 'one'");
        assertThatThrownBy(() -> WorldSpec.of(PLAIN, launcher("AIR_PEERS", "")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("AIR_PEERS must be a number, was ''");
        assertThatThrownBy(() -> WorldSpec.of(PLAIN, slurm("x")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("SLURM_PROCID must be a number, was 'x'");
        assertThatThrownBy(() -> WorldSpec.of(PLAIN, launcher("AIR_PEERS", "0")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("AIR_PEERS must be >= 1, was 0");
        assertThatThrownBy(() -> WorldSpec.of(PLAIN, launcher("AIR_RANK", "4")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("AIR_RANK must be in [0, 4) as AIR_PEERS=4, was 4");
        assertThatThrownBy(() -> WorldSpec.of(PLAIN, launcher("AIR_RANK", "-1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("AIR_RANK must be in [0, 4) as AIR_PEERS=4, was -1");
        assertThatThrownBy(() -> WorldSpec.of(PLAIN, slurm("4")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("SLURM_PROCID must be in [0, 4) as SLURM_NTASKS=4, was 4");
    }

    @Test
    void a_rendezvous_that_is_not_host_port_is_named() {
        for (String bad : new String[] {"localhost", ":5555", "h:", "h:port", "h:0", "h:65536"}) {
            assertThatThrownBy(() -> WorldSpec.of(PLAIN, launcher("AIR_RENDEZVOUS", bad)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("AIR_RENDEZVOUS must be host:port")
                    .hasMessageEndingWith("was '" + bad + "'");
        }
    }

    // --- the transport

    @Test
    void mpj_is_the_default_and_air_transport_tcp_picks_tcp() {
        assertThat(WorldSpec.of(PLAIN, launcher()).transport()).isEqualTo(TransportKind.MPJ);
        assertThat(WorldSpec.of(PLAIN, launcher("AIR_TRANSPORT", "mpj")).transport()).isEqualTo(TransportKind.MPJ);
        assertThat(WorldSpec.of(PLAIN, launcher("AIR_TRANSPORT", "")).transport()).isEqualTo(TransportKind.MPJ);
        WorldSpec tcp = WorldSpec.of(PLAIN, launcher("AIR_TRANSPORT", " TCP "));
        assertThat(tcp.transport()).isEqualTo(TransportKind.TCP);
        assertThat(tcp.describe()).isEqualTo("TCP, rank 1 of 4, rendezvous 127.0.0.1:5555");
        assertThat(WorldSpec.of(PLAIN, slurm("0", "AIR_TRANSPORT", "tcp")).transport()).isEqualTo(TransportKind.TCP);
    }

    @Test
    void an_unknown_transport_is_named_with_its_value() {
        for (Map<String, String> e : List.of(launcher("AIR_TRANSPORT", "udp"), env("AIR_TRANSPORT", "udp"))) {
            String[] args = e.containsKey("AIR_RANK") ? PLAIN : MPJRUN;
            assertThatThrownBy(() -> WorldSpec.of(args, e))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("AIR_TRANSPORT must be mpj or tcp, was 'udp'");
        }
    }

    @Test
    void a_spec_is_checked_when_made_by_hand() {
        assertThatThrownBy(() -> new WorldSpec(Start.MPJRUN, TransportKind.TCP, 0, WorldSpec.PEERS_FROM_MPJ, null, false, null,
                List.of("0", "c", "niodev"), List.of(), null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new WorldSpec(Start.LAUNCHER, TransportKind.MPJ, 2, 2, new Endpoint("h", 1), false, null,
                List.of(), List.of(), null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Endpoint("h", 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
