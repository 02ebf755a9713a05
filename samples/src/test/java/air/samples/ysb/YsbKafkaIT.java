package air.samples.ysb;

import static org.assertj.core.api.Assertions.assertThat;

import air.kafka.broker.LocalKafkaBroker;
import air.launcher.ExitCodes;
import air.launcher.LocalCluster;
import air.runtime.JvmFlags;
import air.samples.kafka.YsbTopic;
import air.workloads.ysb.YsbGenerator;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * YSB-mem with its events in a real Kafka topic of 4 partitions, read by peer JVMs: killed with
 * {@code kill -9} under checkpoints, and stopped with a savepoint on 2 peers then resumed on 1 peer
 * of 3 workers (the partitions dealt anew). Each time the output is, byte for byte, that of the
 * in-memory generator: no partition read twice or skipped.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class YsbKafkaIT {

    private static final String N = "2M";
    private static final int PARTITIONS = 4;
    private static final List<String> JVM = Stream.concat(Stream.of("-Xmx384m"), JvmFlags.recommended().stream()).toList();

    private static LocalKafkaBroker broker;
    private static String topic;
    private static Path reference;
    @TempDir
    static Path shared;

    @BeforeAll
    static void produce() throws Exception {
        broker = LocalKafkaBroker.start();
        YsbArgs args = YsbArgs.parse(N, "1");
        topic = YsbTopic.name(args.n(), args.seed(), args.rate(), PARTITIONS);
        YsbTopic.ensure(broker.bootstrapServers(), topic, PARTITIONS, args.n(), new YsbGenerator(args.seed(), args.rate()));
        reference = shared.resolve("reference.csv");
        assertThat(YsbMain.execute(N, "2", "--quiet", "--out", reference.toString())).isZero();
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    private record Run(int rc, List<String> out) { }

    private static Run run(Path out, int peers, int workers, String... extra) throws Exception {
        List<String> argv = new ArrayList<>(List.of(N, Integer.toString(workers), "--peers", Integer.toString(peers), "--quiet",
                "--checkpoint-interval", "300ms", "--out", out.toString(), "--kafka", broker.bootstrapServers(), "--topic", topic));
        argv.addAll(List.of(extra));
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        YsbArgs args = YsbArgs.parse(argv.toArray(String[]::new));
        LocalCluster.Spec spec = LocalCluster.Spec.of(peers, YsbMain.class.getName(), argv).withJvmOptions(JVM).withOutput(lines::add);
        Run run = new Run(YsbSupervisor.run(args, spec), lines);
        lines.stream().filter(l -> l.contains("SAVEPOINT") || l.contains("RECOVERING") || l.contains("kill -9") || l.contains("RESULT")
                || l.contains("late")).forEach(System.out::println);
        return run;
    }

    @Test
    void a_peer_killed_under_checkpoints_reads_every_partition_once(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("ysb.csv");
        Run run = run(out, 2, 1, "--checkpoints", dir.resolve("ck").toString(), "--kill", "1", "--kill-seed", "3");
        assertThat(run.rc()).as(String.join("\n", run.out())).isZero();
        assertThat(run.out()).anyMatch(l -> l.startsWith("[launcher] kill -9 peer"));
        assertThat(Files.readString(out)).as("the in-memory generator's output").isEqualTo(Files.readString(reference));
    }

    @Test
    void a_savepoint_on_two_peers_resumed_on_one_peer_of_three_workers(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("ysb.csv");
        String ck = dir.resolve("ck").toString();
        Run first = run(out, 2, 1, "--savepoint", ck, "--stop-after", "1500ms");
        assertThat(first.rc()).as(String.join("\n", first.out())).isEqualTo(ExitCodes.STOPPED);
        Run second = run(out, 1, 3, "--checkpoints", ck);
        assertThat(second.rc()).as(String.join("\n", second.out())).isZero();
        assertThat(second.out()).anyMatch(l -> l.contains("of 2 peer(s) x 1 worker(s)") && l.contains("onto 1 peer(s) x 3 worker(s)"));
        assertThat(Files.readString(out)).as("the in-memory generator's output").isEqualTo(Files.readString(reference));
    }
}
