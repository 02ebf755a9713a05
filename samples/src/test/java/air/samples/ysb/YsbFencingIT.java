package air.samples.ysb;

import static org.assertj.core.api.Assertions.assertThat;

import air.channels.bootstrap.PeerEnvironment;
import air.launcher.ExitCodes;
import air.launcher.LocalCluster;
import air.launcher.ReplicaSupervisor;
import air.runtime.JvmFlags;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Agreed membership and fencing over four peer JVMs on AIR's TCP transport. A peer stopped with
 * {@code kill -STOP} for 5 s (longer than the 3 s failure timeout) is declared lost by a numbered
 * view; when it runs again it learns so and stops, fenced, without writing a line beside its
 * successor; the run's output still matches the reference with nothing lost or duplicated, and
 * the run exits 0, under replication (takeover) and under checkpoints (rollback). Two peers lost
 * together are survived with two replicas and fail fast, saying why, with one.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class YsbFencingIT {

    private static final String REFERENCE_400M = "eeb319f3";
    private static final List<String> JVM = Stream.concat(Stream.of("-Xmx512m"), JvmFlags.recommended().stream()).toList();
    private static final long PAUSE_MS = 5_000;

    private record Run(int rc, List<String> out) {
        String check() {
            return out.stream().filter(l -> l.startsWith("CHECK ")).findFirst().orElseThrow(() -> new AssertionError(String.join("\n", out)));
        }
    }

    private static Run replicated(Path dir, int replicas, String seed, UnaryOperator<ReplicaSupervisor.Options> fault) throws Exception {
        List<String> argv = new ArrayList<>(List.of("400M", "1", "--peers", "4", "--replicas", Integer.toString(replicas), "--kill", "1",
                "--kill-seed", seed, "--checkpoint-interval", "250ms", "--quiet", "--out", dir.resolve("ysb.csv").toString()));
        List<String> out = Collections.synchronizedList(new ArrayList<>());
        YsbArgs args = YsbArgs.parse(argv.toArray(String[]::new));
        LocalCluster.Spec spec = LocalCluster.Spec.of(4, YsbMain.class.getName(), argv).withJvmOptions(JVM).withOutput(out::add)
                .withEnvironment(Map.of(PeerEnvironment.TRANSPORT, "tcp"));
        return new Run(YsbReplicaSupervisor.run(args, spec, fault), out);
    }

    @Test
    void a_paused_peer_is_taken_over_and_stops_fenced_when_it_runs_again(@TempDir Path dir) throws Exception {
        Run r = replicated(dir, 1, "5", o -> o.withFault(ReplicaSupervisor.Fault.pause(PAUSE_MS)));
        assertThat(r.rc()).as(String.join("\n", r.out())).isZero();
        assertThat(r.check()).startsWith("CHECK lost=0 dup=0 kills=1 ");
        int victim = victim(r.out(), "[launcher] kill -STOP peer ");
        assertThat(r.out()).anyMatch(l -> l.startsWith("[peer " + victim + "]") && l.contains("is fenced"));
        assertThat(r.out()).contains("[launcher] kill -CONT peer " + victim);
        assertThat(r.out()).anyMatch(l -> l.startsWith("[launcher] peer " + victim + " stopped fenced after its pause"));
        assertThat(r.out()).anyMatch(l -> l.contains("TAKEOVER on peer"));
        assertThat(r.out()).anyMatch(l -> l.contains("RESULT") && l.contains("sha256=" + REFERENCE_400M));
    }

    @Test
    void two_peers_lost_together_are_survived_with_two_replicas(@TempDir Path dir) throws Exception {
        // seed 1 strikes peers 1 and 2 together: peer 3 holds copies of both and takes both shares over
        Run r = replicated(dir, 2, "1", o -> o.withFault(ReplicaSupervisor.Fault.KILL.together(2)));
        assertThat(r.rc()).as(String.join("\n", r.out())).isZero();
        assertThat(r.check()).startsWith("CHECK lost=0 dup=0 kills=1 ");
        assertThat(r.out()).contains("[launcher] kill -9 peer 1 (kill 1 of 1)", "[launcher] kill -9 peer 2 (kill 1 of 1)");
        assertThat(r.out()).anyMatch(l -> l.startsWith("[peer 3]") && l.contains("TAKEOVER on peer 3"));
        assertThat(r.out()).anyMatch(l -> l.contains("RESULT") && l.contains("sha256=" + REFERENCE_400M));
    }

    @Test
    void two_peers_lost_together_with_one_replica_fail_fast_saying_why(@TempDir Path dir) throws Exception {
        long start = System.nanoTime();
        Run r = replicated(dir, 1, "1", o -> o.withFault(ReplicaSupervisor.Fault.KILL.together(2)));
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
        assertThat(r.rc()).as(String.join("\n", r.out())).isEqualTo(ExitCodes.JOB_FAILED);
        assertThat(r.out()).anyMatch(l -> l.contains("holds no copy of block 1's state"));
        assertThat(seconds).as("a failure, not a hang").isLessThan(120);
    }

    @Test
    void under_checkpoints_a_paused_peer_makes_the_others_roll_back_and_stops_fenced(@TempDir Path dir) throws Exception {
        List<String> argv = new ArrayList<>(List.of("400M", "1", "--peers", "4", "--checkpoints", dir.resolve("ck").toString(),
                "--checkpoint-interval", "500ms", "--kill", "1", "--kill-seed", "7", "--quiet", "--out", dir.resolve("ysb.csv").toString()));
        List<String> out = Collections.synchronizedList(new ArrayList<>());
        YsbArgs args = YsbArgs.parse(argv.toArray(String[]::new));
        LocalCluster.Spec spec = LocalCluster.Spec.of(4, YsbMain.class.getName(), argv).withJvmOptions(JVM).withOutput(out::add)
                .withEnvironment(Map.of(PeerEnvironment.TRANSPORT, "tcp"));
        int rc = YsbSupervisor.run(args, spec, o -> o.withPauses(PAUSE_MS));
        assertThat(rc).as(String.join("\n", out)).isZero();
        Run r = new Run(rc, out);
        assertThat(r.check()).startsWith("CHECK lost=0 dup=0 kills=1 ");
        int victim = victim(out, "[launcher] kill -STOP peer ");
        assertThat(out).anyMatch(l -> l.startsWith("[peer " + victim + "]") && l.contains("is fenced"));
        assertThat(out).anyMatch(l -> l.startsWith("[launcher] peer " + victim + " stopped fenced after its pause"));
        assertThat(out).anyMatch(l -> l.contains("RECOVERING on peer") && l.contains("resuming from checkpoint"));
        assertThat(out).anyMatch(l -> l.contains("RESULT") && l.contains("sha256=" + REFERENCE_400M));
    }

    private static int victim(List<String> out, String prefix) {
        String line = out.stream().filter(l -> l.startsWith(prefix)).findFirst().orElseThrow(() -> new AssertionError(String.join("\n", out)));
        return Integer.parseInt(line.substring(prefix.length()).split(" ")[0]);
    }
}
