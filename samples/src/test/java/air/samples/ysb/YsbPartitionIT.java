package air.samples.ysb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import air.channels.bootstrap.PeerEnvironment;
import air.launcher.LocalCluster;
import air.launcher.ReplicaSupervisor;
import air.runtime.JvmFlags;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A network partition between "hosts": four YSB peers over AIR's TCP transport, each in a network
 * namespace of its own ({@link NamespaceHosts}), run by the launcher's supervisors from this
 * namespace. One seeded peer's host is cut off the network (its switch port down) for 5 s, longer
 * than the 3 s failure timeout, then connected again: the others declare it lost by a numbered
 * view, and the cut-off peer, alone and short of a quorum, stops fenced (status 5) saying so, never
 * writing beside its successor. The run exits 0 and its output is the reference with nothing lost
 * or duplicated, under replication (takeover) and under checkpoints (rollback). Needs root to make
 * the namespaces; skipped, saying why, where they cannot be made. Every namespace, link and peer it
 * makes is removed, whatever happens.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class YsbPartitionIT {

    private static final String REFERENCE_400M = "eeb319f3";
    private static final List<String> JVM = Stream.concat(Stream.of("-Xmx512m"), JvmFlags.recommended().stream()).toList();
    private static final long PARTITION_MS = 5_000;

    @BeforeAll
    static void namespaces_can_be_made() {
        String why = NamespaceHosts.unavailable();
        assumeTrue(why == null, () -> "partition suite skipped: " + why);
    }

    private static LocalCluster.Spec spec(List<String> argv, List<String> out, NamespaceHosts hosts) {
        return LocalCluster.Spec.of(4, YsbMain.class.getName(), argv).withJvmOptions(JVM).withOutput(out::add)
                .withEnvironment(Map.of(PeerEnvironment.TRANSPORT, "tcp")).withHosts(hosts);
    }

    @Test
    void a_partitioned_peer_is_taken_over_and_stops_fenced_under_replication(@TempDir Path dir) throws Exception {
        List<String> argv = List.of("400M", "1", "--peers", "4", "--replicas", "1", "--kill", "1", "--kill-seed", "5",
                "--checkpoint-interval", "250ms", "--quiet", "--out", dir.resolve("ysb.csv").toString());
        List<String> out = Collections.synchronizedList(new ArrayList<>());
        NamespaceHosts hosts = NamespaceHosts.withLauncher(4);
        int rc;
        try (hosts) {
            rc = YsbReplicaSupervisor.run(YsbArgs.parse(argv.toArray(String[]::new)), spec(argv, out, hosts),
                    o -> o.withFault(ReplicaSupervisor.Fault.partition(PARTITION_MS)));
        }
        show(out);
        assertThat(hosts.leftovers()).as("namespaces and links left behind").isEmpty();
        assertThat(rc).as(String.join("\n", out)).isZero();
        int victim = fencedAfterItsPartition(out);
        assertThat(out).anyMatch(l -> l.startsWith("[launcher] peer " + victim + " stopped fenced after its partition; peer "));
        assertThat(out).anyMatch(l -> l.contains("TAKEOVER on peer"));
        assertThat(out).noneMatch(l -> l.contains("RECOVERING on peer"));
        assertThat(check(out)).startsWith("CHECK lost=0 dup=0 kills=1 ");
        assertThat(out).anyMatch(l -> l.contains("RESULT") && l.contains("sha256=" + REFERENCE_400M));
    }

    @Test
    void a_partitioned_peer_makes_the_others_roll_back_and_stops_fenced_under_checkpoints(@TempDir Path dir) throws Exception {
        List<String> argv = List.of("400M", "1", "--peers", "4", "--checkpoints", dir.resolve("ck").toString(), "--checkpoint-interval",
                "500ms", "--kill", "1", "--kill-seed", "7", "--quiet", "--out", dir.resolve("ysb.csv").toString());
        List<String> out = Collections.synchronizedList(new ArrayList<>());
        NamespaceHosts hosts = NamespaceHosts.withLauncher(4);
        int rc;
        try (hosts) {
            rc = YsbSupervisor.run(YsbArgs.parse(argv.toArray(String[]::new)), spec(argv, out, hosts), o -> o.withPartitions(PARTITION_MS));
        }
        show(out);
        assertThat(hosts.leftovers()).as("namespaces and links left behind").isEmpty();
        assertThat(rc).as(String.join("\n", out)).isZero();
        int victim = fencedAfterItsPartition(out);
        assertThat(out).contains("[launcher] peer " + victim + " stopped fenced after its partition");
        // the restart comes after the host is connected again: every peer of the next attempt reaches the others
        assertThat(out.indexOf("[launcher] peer " + victim + " stopped fenced after its partition"))
                .isGreaterThan(indexOfPrefix(out, "[launcher] connected peer " + victim + "'s host again"));
        assertThat(out).anyMatch(l -> l.contains("RECOVERING on peer") && l.contains("resuming from checkpoint"));
        assertThat(check(out)).startsWith("CHECK lost=0 dup=0 kills=1 ");
        assertThat(out).anyMatch(l -> l.contains("RESULT") && l.contains("sha256=" + REFERENCE_400M));
    }

    /** The cut-off peer: cut, said it was fenced, exited 5, its host connected again. */
    private static int fencedAfterItsPartition(List<String> out) {
        String prefix = "[launcher] cut peer ";
        String line = out.stream().filter(l -> l.startsWith(prefix)).findFirst().orElseThrow(() -> new AssertionError(String.join("\n", out)));
        int victim = Integer.parseInt(line.substring(prefix.length()).split("'")[0]);
        assertThat(line).endsWith("'s host off the network for " + PARTITION_MS + " ms (partition 1 of 1)");
        assertThat(out).anyMatch(l -> l.startsWith("[peer " + victim + "]") && l.contains("is fenced"));
        assertThat(out).anyMatch(l -> l.startsWith("[launcher] connected peer " + victim + "'s host again"));
        return victim;
    }

    /** The launcher's lines, the peers' about views and fencing, and the CHECK line, for the test's report. */
    private static void show(List<String> out) {
        synchronized (out) {
            out.stream().filter(l -> l.startsWith("[launcher]") || l.startsWith("CHECK") || l.contains("fenced") || l.contains("view")
                    || l.contains("TAKEOVER") || l.contains("RECOVERING")).forEach(System.out::println);
        }
    }

    private static int indexOfPrefix(List<String> out, String prefix) {
        for (int i = 0; i < out.size(); i++) {
            if (out.get(i).startsWith(prefix)) {
                return i;
            }
        }
        throw new AssertionError("no line starts with '" + prefix + "':\n" + String.join("\n", out));
    }

    private static String check(List<String> out) {
        return out.stream().filter(l -> l.startsWith("CHECK ")).findFirst().orElseThrow(() -> new AssertionError(String.join("\n", out)));
    }
}
