package air.samples.ysb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import air.channels.MeshAuth;
import air.channels.bootstrap.PeerEnvironment;
import air.channels.bootstrap.QuietMpjHome;
import air.launcher.LocalCluster;
import air.runtime.JvmFlags;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Peers on different "hosts": each in its own network namespace with its own address, started the
 * srun way ({@code SLURM_PROCID}, {@code SLURM_NTASKS}, {@code AIR_RENDEZVOUS=<host 0>:port}) with
 * {@code AIR_BIND=0.0.0.0} and a shared {@code AIR_SECRET}, as the docs say to; YSB-mem must give the reference checksum over MPJ
 * Express and over AIR's TCP transport. Under {@code --replicas 1} over TCP, with the launcher's
 * replica supervisor here and the peers one per namespace ({@link NamespaceHosts#withLauncher}), a
 * peer killed with {@code kill -9} has its share taken over by a peer in another namespace, and the
 * output is still the reference with nothing lost or duplicated. Needs root to make the
 * namespaces; skipped, saying why, where they cannot be made.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class YsbMultiHostIT {

    private static final String REFERENCE_5M = "918c079abd661bab8445c17beef6f9bfdec2492356713c80f4c1895a67855871";
    private static final String REFERENCE_400M = "eeb319f3e0afcbd3b35cfdd0a69b652b3eeb5c757c5b76942fcb1079170e496a";
    private static final List<String> JVM = Stream.concat(Stream.of("-Xmx512m"), JvmFlags.recommended().stream()).toList();

    @BeforeAll
    static void namespaces_can_be_made() {
        String why = NamespaceHosts.unavailable();
        assumeTrue(why == null, () -> "multi-host suite skipped: " + why);
    }

    @ParameterizedTest(name = "{0} hosts over {1}")
    @CsvSource({"2,mpj,1", "2,tcp,2", "4,mpj,3", "4,tcp,4"})
    void ysb_across_namespace_hosts_matches_the_reference(int hosts, String transport, int net, @TempDir Path dir) throws Exception {
        Path mpjHome = QuietMpjHome.create();
        List<Process> peers = new ArrayList<>();
        try (NamespaceHosts h = NamespaceHosts.create(hosts, net)) {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            String rendezvous = h.address(0) + ":7700";
            String secret = MeshAuth.randomSecret(); // off loopback a peer refuses to start without one: the world's, as under srun
            for (int r = 0; r < hosts; r++) {
                Path out = dir.resolve("ysb-" + r + ".csv");
                ProcessBuilder pb = new ProcessBuilder(h.inside(r, List.of(java, "-Xmx512m", "-cp", System.getProperty("java.class.path"),
                        YsbMain.class.getName(), "5M", "1", "--quiet", "--out", out.toString())))
                        .redirectErrorStream(true).redirectOutput(dir.resolve("peer-" + r + ".log").toFile());
                Map<String, String> env = pb.environment();
                env.put("SLURM_PROCID", Integer.toString(r));
                env.put("SLURM_NTASKS", Integer.toString(hosts));
                env.put("AIR_RENDEZVOUS", rendezvous);
                env.put("AIR_BIND", "0.0.0.0");
                env.put(MeshAuth.SECRET, secret);
                env.put("AIR_TRANSPORT", transport);
                env.put("MPJ_HOME", mpjHome.toString());
                peers.add(pb.start());
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
            boolean[] ended = new boolean[hosts];
            for (int r = 0; r < hosts; r++) {
                ended[r] = peers.get(r).waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
            StringBuilder logs = new StringBuilder(); // every peer's log: one peer's failure is often explained by another's
            for (int r = 0; r < hosts; r++) {
                logs.append(String.format("%n--- peer %d (%s) ---%n", r, ended[r] ? "exit status " + peers.get(r).exitValue() : "still running"))
                        .append(Files.readString(dir.resolve("peer-" + r + ".log"), StandardCharsets.UTF_8));
            }
            for (int r = 0; r < hosts; r++) {
                assertThat(ended[r]).as("peer %d ended; the peers' logs:%s", r, logs).isTrue();
                assertThat(peers.get(r).exitValue()).as("peer %d's exit status; the peers' logs:%s", r, logs).isZero();
            }
            String log = Files.readString(dir.resolve("peer-0.log"), StandardCharsets.UTF_8);
            assertThat(log).contains("sha256=" + REFERENCE_5M).contains("peers=" + hosts).contains("checksum matches the reference");
        } finally {
            for (Process p : peers) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
            QuietMpjHome.delete(mpjHome);
        }
        for (Process p : peers) {
            assertThat(p.isAlive()).isFalse();
        }
    }

    @ParameterizedTest(name = "{0} hosts, one peer killed")
    @ValueSource(ints = {2, 4})
    void a_peer_killed_on_one_namespace_host_is_taken_over_on_another_and_matches_the_reference(int hosts, @TempDir Path dir)
            throws Exception {
        List<String> argv = List.of("400M", "1", "--peers", Integer.toString(hosts), "--replicas", "1", "--kill", "1", "--kill-seed", "3",
                "--checkpoint-interval", "250ms", "--quiet", "--out", dir.resolve("ysb.csv").toString());
        List<String> out = Collections.synchronizedList(new ArrayList<>());
        NamespaceHosts h = NamespaceHosts.withLauncher(hosts);
        int rc;
        try (h) {
            LocalCluster.Spec spec = LocalCluster.Spec.of(hosts, YsbMain.class.getName(), argv).withJvmOptions(JVM).withOutput(out::add)
                    .withEnvironment(Map.of(PeerEnvironment.TRANSPORT, "tcp")).withHosts(h);
            rc = YsbReplicaSupervisor.run(YsbArgs.parse(argv.toArray(String[]::new)), spec);
        }
        synchronized (out) {
            out.stream().filter(l -> l.startsWith("[launcher]") || l.startsWith("CHECK") || l.contains("TAKEOVER")).forEach(System.out::println);
        }
        assertThat(h.leftovers()).as("namespaces and links left behind").isEmpty();
        assertThat(rc).as(String.join("\n", out)).isZero();
        String prefix = "[launcher] kill -9 peer ";
        String kill = out.stream().filter(l -> l.startsWith(prefix)).findFirst().orElseThrow(() -> new AssertionError(String.join("\n", out)));
        int victim = Integer.parseInt(kill.substring(prefix.length()).split(" ")[0]);
        // one peer per namespace: the peer that takes the share over runs on another host than the victim
        assertThat(out).anyMatch(l -> l.contains("TAKEOVER on peer") && l.contains("runs peer(s) [" + victim + "]'s block(s)")
                && !l.startsWith("[peer " + victim + "]"));
        assertThat(out).noneMatch(l -> l.contains("RECOVERING on peer"));
        String check = out.stream().filter(l -> l.startsWith("CHECK ")).findFirst().orElseThrow(() -> new AssertionError(String.join("\n", out)));
        assertThat(check).startsWith("CHECK lost=0 dup=0 kills=1 ");
        assertThat(out).anyMatch(l -> l.contains("] RESULT") && l.contains("sha256=" + REFERENCE_400M) && l.contains("peers=" + hosts));
    }
}
