package air.samples.ysb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import air.channels.bootstrap.QuietMpjHome;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Peers on different "hosts": each in its own network namespace with its own address, started the
 * srun way ({@code SLURM_PROCID}, {@code SLURM_NTASKS}, {@code AIR_RENDEZVOUS=<host 0>:port}) with
 * {@code AIR_BIND=0.0.0.0}, as the docs say to; YSB-mem must give the reference checksum over MPJ
 * Express and over AIR's TCP transport. Needs root to make the namespaces; skipped, saying why,
 * where they cannot be made.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class YsbMultiHostIT {

    private static final String REFERENCE_5M = "918c079abd661bab8445c17beef6f9bfdec2492356713c80f4c1895a67855871";

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
                env.put("AIR_TRANSPORT", transport);
                env.put("MPJ_HOME", mpjHome.toString());
                peers.add(pb.start());
            }
            for (int r = 0; r < hosts; r++) {
                Process p = peers.get(r);
                boolean ended = p.waitFor(180, TimeUnit.SECONDS);
                String log = Files.readString(dir.resolve("peer-" + r + ".log"), StandardCharsets.UTF_8);
                assertThat(ended).as("peer %d ended; its log:%n%s", r, log).isTrue();
                assertThat(p.exitValue()).as("peer %d's exit status; its log:%n%s", r, log).isZero();
                if (r == 0) {
                    assertThat(log).contains("sha256=" + REFERENCE_5M).contains("peers=" + hosts).contains("checksum matches the reference");
                }
            }
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
}
