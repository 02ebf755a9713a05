package air.samples.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;

import air.dsl.Checkpoints;
import air.dsl.Pipeline;
import air.dsl.Sinks;
import air.dsl.Stage;
import air.kafka.KafkaSinks;
import air.kafka.KafkaSources;
import air.runtime.Cluster;
import air.runtime.JobConfig;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/**
 * One peer of {@link KafkaExactlyOnceKillIT}: reads the numbered input topic to its end, maps each
 * value {@code v} to {@code out-v} (parking ~20 µs per record, so that a kill lands mid-run) and
 * writes it exactly once, either with the exactly-once Kafka sink or into rolling part files,
 * under checkpoints every 200 ms to a shared directory or under replication (one replica, every
 * 200 ms). Arguments: bootstrap servers, input topic, output (a topic for {@code kafka}, a
 * directory for {@code files}), checkpoint directory (unused under replication), then optionally
 * the sink ({@code kafka}, the default, or {@code files}) and the fault tolerance
 * ({@code checkpoints}, the default, or {@code replication}).
 */
public final class EosJobMain {

    static final String PREFIX = "eos-it";
    static final long PARK_NANOS = 20_000;
    static final long INTERVAL_MS = 200;

    private EosJobMain() {
    }

    public static void main(String[] argv) {
        int rc;
        try (Cluster cluster = Cluster.join(argv)) {
            String[] a = cluster.userArgs();
            String bootstrap = a[0];
            String sink = a.length > 4 ? a[4] : "kafka";
            String mode = a.length > 5 ? a[5] : "checkpoints";
            Pipeline p = Pipeline.create();
            Stage<String> out = p.readFrom(KafkaSources.strings(bootstrap, a[1]).bounded())
                    .map(v -> {
                        LockSupport.parkNanos(PARK_NANOS);
                        return "out-" + v;
                    });
            switch (sink) {
                case "kafka" -> out.writeTo(KafkaSinks.exactlyOnce(bootstrap, a[2], (String s) -> s.getBytes(UTF_8))
                        .transactionalIdPrefix(PREFIX + "-" + a[2]));
                case "files" -> out.writeTo(Sinks.files(Path.of(a[2]), (String s) -> s));
                default -> throw new IllegalArgumentException("sink must be kafka or files, was " + sink);
            }
            JobConfig config = JobConfig.defaults().name("eos-kill").workers(2).cluster(cluster);
            config = switch (mode) {
                case "checkpoints" -> config.checkpoints(Checkpoints.toDirectory(Path.of(a[3])), INTERVAL_MS);
                case "replication" -> config.replication(1, INTERVAL_MS);
                default -> throw new IllegalArgumentException("fault tolerance must be checkpoints or replication, was " + mode);
            };
            p.execute(config);
            System.out.println("EOS-JOB DONE on peer " + cluster.self());
            rc = 0;
        } catch (RuntimeException e) {
            System.out.println("EOS-JOB FAILED: " + e);
            rc = 3;
        }
        System.exit(rc);
    }
}
