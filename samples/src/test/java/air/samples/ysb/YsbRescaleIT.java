package air.samples.ysb;

import static org.assertj.core.api.Assertions.assertThat;

import air.launcher.ExitCodes;
import air.launcher.LocalCluster;
import air.launcher.RestartSupervisor;
import air.runtime.JvmFlags;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Savepoints and rescaling through the command line, over peer JVMs and one checkpoint directory:
 * YSB-mem 400M on 2 peers x 2 workers stops with a savepoint ({@code --savepoint DIR --stop-after});
 * a run on 4 peers x 1 worker resumes from it and is killed ({@code kill -9} of a peer, no restart);
 * a run on 1 peer x 2 workers resumes from that run's newest checkpoint and ends with the
 * reference checksum: nothing lost, nothing twice, across three layouts.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class YsbRescaleIT {

    private static final String REFERENCE_400M = "eeb319f3";
    private static final List<String> JVM = Stream.concat(Stream.of("-Xmx384m"), JvmFlags.recommended().stream()).toList();

    private record Run(int rc, List<String> out) { }

    private static Run run(Path dir, int peers, int workers, UnaryOperator<RestartSupervisor.Options> adjust,
                           String... extra) throws Exception {
        List<String> argv = new ArrayList<>(List.of("400M", Integer.toString(workers), "--peers", Integer.toString(peers),
                "--checkpoint-interval", "300ms", "--quiet", "--out", dir.resolve("ysb.csv").toString()));
        argv.addAll(List.of(extra));
        List<String> out = Collections.synchronizedList(new ArrayList<>());
        YsbArgs args = YsbArgs.parse(argv.toArray(String[]::new));
        LocalCluster.Spec spec = LocalCluster.Spec.of(peers, YsbMain.class.getName(), argv).withJvmOptions(JVM).withOutput(out::add);
        Run run = new Run(YsbSupervisor.run(args, spec, adjust), out);
        out.stream().filter(l -> l.contains("SAVEPOINT") || l.contains("RECOVERING") || l.contains("kill -9") || l.contains("RESULT")
                || l.contains("STOPPED")).forEach(System.out::println);
        return run;
    }

    @Test
    void stopped_on_2x2_killed_on_4x1_and_ended_on_1x2_the_output_is_the_reference(@TempDir Path dir) throws Exception {
        String ck = dir.resolve("ck").toString();
        Run first = run(dir, 2, 2, UnaryOperator.identity(), "--savepoint", ck, "--stop-after", "2s");
        assertThat(first.rc()).as(String.join("\n", first.out())).isEqualTo(ExitCodes.STOPPED);
        String savepoint = first.out().stream().filter(l -> l.startsWith("[peer 0] SAVEPOINT ")).findFirst()
                .orElseThrow(() -> new AssertionError(String.join("\n", first.out())));
        assertThat(first.out()).noneMatch(l -> l.contains("RESULT"));

        // the launcher kills a peer once every peer wrote a checkpoint of this layout, and does not restart it
        Run second = run(dir, 4, 1, o -> o.withMaxRestarts(0), "--checkpoints", ck, "--kill", "1", "--kill-seed", "7");
        assertThat(second.rc()).as(String.join("\n", second.out())).isEqualTo(ExitCodes.JOB_FAILED);
        assertThat(second.out()).anyMatch(l -> l.startsWith("[launcher] kill -9 peer"));
        assertThat(second.out()).anyMatch(l -> l.contains("of 2 peer(s) x 2 worker(s)") && l.contains("onto 4 peer(s) x 1 worker(s)"));

        Run third = run(dir, 1, 2, UnaryOperator.identity(), "--checkpoints", ck);
        assertThat(third.rc()).as(savepoint + "\n" + String.join("\n", third.out())).isZero();
        assertThat(third.out()).anyMatch(l -> l.contains("of 4 peer(s) x 1 worker(s)") && l.contains("onto 1 peer(s) x 2 worker(s)"));
        assertThat(third.out()).anyMatch(l -> l.contains("RESULT") && l.contains("sha256=" + REFERENCE_400M));
    }
}
