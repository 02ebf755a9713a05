package air.samples.kafka;

import static java.nio.charset.StandardCharsets.UTF_8;

import air.dsl.Checkpoints;
import air.dsl.Pipeline;
import air.kafka.KafkaSinks;
import air.kafka.KafkaSources;
import air.runtime.Cluster;
import air.runtime.JobConfig;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/**
 * One peer of {@link KafkaExactlyOnceKillIT}: reads the numbered input topic to its end, maps each
 * value {@code v} to {@code out-v} (parking ~20 µs per record, so that a kill lands mid-run) and
 * writes it with the exactly-once Kafka sink, under checkpoints every 200 ms to a shared directory.
 * Arguments: bootstrap servers, input topic, output topic, checkpoint directory.
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
            Pipeline p = Pipeline.create();
            p.readFrom(KafkaSources.strings(bootstrap, a[1]).bounded())
                    .map(v -> {
                        LockSupport.parkNanos(PARK_NANOS);
                        return "out-" + v;
                    })
                    .writeTo(KafkaSinks.exactlyOnce(bootstrap, a[2], (String s) -> s.getBytes(UTF_8)).transactionalIdPrefix(PREFIX));
            p.execute(JobConfig.defaults().name("eos-kill").workers(2).cluster(cluster)
                    .checkpoints(Checkpoints.toDirectory(Path.of(a[3])), INTERVAL_MS));
            System.out.println("EOS-JOB DONE on peer " + cluster.self());
            rc = 0;
        } catch (RuntimeException e) {
            System.out.println("EOS-JOB FAILED: " + e);
            rc = 3;
        }
        System.exit(rc);
    }
}
