package air.samples.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import air.kafka.broker.LocalKafkaBroker;
import air.launcher.LocalCluster;
import air.runtime.JvmFlags;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exactly-once Kafka sink across a {@code kill -9} of a peer JVM: {@link EosJobMain} runs as 2
 * peers reading a numbered topic of 4 partitions under checkpoints; once both peers wrote checkpoint
 * 2, peer 1 is killed (the survivor fails). A {@code read_committed} consumer then sees no record
 * twice; 2 fresh peers resume from the checkpoints and finish, and {@code read_committed} reads
 * every number exactly once.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class KafkaExactlyOnceKillIT {

    private static final int N = 200_000;
    private static final int PARTITIONS = 4;
    private static final Duration DEADLINE = Duration.ofSeconds(90);
    private static final List<String> JVM = Stream.concat(Stream.of("-Xmx384m"), JvmFlags.recommended().stream()).toList();

    @Test
    void a_peer_killed_under_checkpoints_leaves_every_record_once_for_read_committed(@TempDir Path dir) throws Exception {
        try (LocalKafkaBroker broker = LocalKafkaBroker.start()) {
            String bootstrap = broker.bootstrapServers();
            broker.createTopic("eos-in", PARTITIONS);
            broker.createTopic("eos-out", PARTITIONS);
            produce(bootstrap, "eos-in");
            List<String> argv = List.of(bootstrap, "eos-in", "eos-out", dir.resolve("ck").toString());

            // run 1: killed once both peers wrote checkpoint 2
            List<String> first = new ArrayList<>();
            try (LocalCluster cluster = LocalCluster.start(spec(argv, first))) {
                long deadline = System.nanoTime() + DEADLINE.toNanos();
                while (!(contains(first, "checkpoint 2 written by peer 0") && contains(first, "checkpoint 2 written by peer 1")
                        && committedOffsets(bootstrap, "eos-out") >= N / 10)) {
                    assertThat(System.nanoTime()).as("checkpoint 2 written by both peers and %d records committed before the deadline:\n%s",
                            N / 10, text(first))
                            .isLessThan(deadline);
                    assertThat(cluster.isAlive(0) && cluster.isAlive(1)).as("both peers still running:\n%s", text(first)).isTrue();
                    LockSupport.parkNanos(50_000_000);
                }
                cluster.kill(1);
                System.out.printf("run 1: peer 1 killed at %d committed offsets of the output%n", committedOffsets(bootstrap, "eos-out"));
                int[] codes = cluster.await(DEADLINE.toMillis());
                System.out.printf("run 1: exit codes %d, %d%n", codes[0], codes[1]);
                assertThat(codes[1]).as("the killed peer").isNotZero();
            }
            print("run 1", first);
            assertThat(text(first)).as("run 1 did not finish before the kill").doesNotContain("EOS-JOB DONE");
            List<String> afterKill = read(bootstrap, "eos-out", "read_committed");
            System.out.printf("after the kill: read_committed sees %d records, read_uncommitted %d%n", afterKill.size(),
                    read(bootstrap, "eos-out", "read_uncommitted").size());
            assertNoDuplicates(afterKill, "read_committed after the kill");

            // run 2: resumes from the checkpoints and finishes
            List<String> second = new ArrayList<>();
            long started = System.nanoTime();
            try (LocalCluster cluster = LocalCluster.start(spec(argv, second))) {
                int[] codes = cluster.await(DEADLINE.toMillis() * 2);
                System.out.printf("run 2: %d ms%n", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
                print("run 2", second);
                assertThat(codes).as(text(second)).containsOnly(0);
            }
            assertThat(text(second)).contains("RECOVERING");

            List<String> committed = read(bootstrap, "eos-out", "read_committed");
            List<String> uncommitted = read(bootstrap, "eos-out", "read_uncommitted");
            System.out.printf("at the end: read_committed sees %d records, read_uncommitted %d (of %d)%n", committed.size(),
                    uncommitted.size(), N);
            assertNoDuplicates(committed, "read_committed at the end");
            Set<String> expected = new HashSet<>();
            for (int i = 0; i < N; i++) {
                expected.add("out-" + i);
            }
            Set<String> missing = new HashSet<>(expected);
            committed.forEach(missing::remove);
            assertThat(missing.size()).as("values missing, e.g. %s", missing.stream().limit(20).toList()).isZero();
            assertThat(committed).hasSize(N);
            assertThat(new HashSet<>(committed)).isEqualTo(expected);
        }
    }

    private static LocalCluster.Spec spec(List<String> argv, List<String> lines) {
        return LocalCluster.Spec.of(2, EosJobMain.class.getName(), argv).withJvmOptions(JVM).withOutput(line -> {
            synchronized (lines) {
                lines.add(line);
            }
        });
    }

    private static boolean contains(List<String> lines, String what) {
        synchronized (lines) {
            return lines.stream().anyMatch(l -> l.contains(what));
        }
    }

    private static String text(List<String> lines) {
        synchronized (lines) {
            return String.join("\n", lines);
        }
    }

    private static void print(String run, List<String> lines) {
        synchronized (lines) {
            lines.stream().filter(l -> l.contains("RECOVERING") || l.contains("EOS-JOB") || l.contains("[launcher]") || l.contains("WARN")
                    || l.contains("ERROR") || l.contains("checkpoint 2 written")).forEach(l -> System.out.println(run + ": " + l));
        }
    }

    /** The sum of {@code topic}'s last stable offsets: its committed records (and transaction markers). */
    private static long committedOffsets(String bootstrap, String topic) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int i = 0; i < PARTITIONS; i++) {
                latest.put(new TopicPartition(topic, i), OffsetSpec.latest());
            }
            return admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get(30, TimeUnit.SECONDS).values()
                    .stream().mapToLong(ListOffsetsResultInfo::offset).sum();
        }
    }

    private static void produce(String bootstrap, String topic) throws Exception {
        Map<String, Object> p = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.LINGER_MS_CONFIG, 5);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < N; i++) {
                producer.send(new ProducerRecord<>(topic, i % PARTITIONS, null, Integer.toString(i)));
            }
            producer.flush();
        }
    }

    /** Every value of {@code topic} up to its end for a consumer of {@code isolation} (read_committed: the last stable offsets). */
    private static List<String> read(String bootstrap, String topic, String isolation) {
        Map<String, Object> p = new HashMap<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false, ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation));
        List<String> out = new ArrayList<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = c.partitionsFor(topic).stream().map(i -> new TopicPartition(topic, i.partition())).toList();
            c.assign(partitions);
            c.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = c.endOffsets(partitions);
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (!partitions.stream().allMatch(tp -> c.position(tp) >= end.get(tp))) {
                assertThat(System.nanoTime()).as("read back " + topic + " (" + isolation + ") before the deadline").isLessThan(deadline);
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    out.add(r.value());
                }
            }
        }
        return out;
    }

    private static void assertNoDuplicates(List<String> values, String what) {
        Set<String> seen = new HashSet<>();
        List<String> twice = new ArrayList<>();
        for (String v : values) {
            if (!seen.add(v)) {
                twice.add(v);
            }
        }
        assertThat(twice.size()).as("%s: values seen twice, e.g. %s", what, twice.subList(0, Math.min(20, twice.size()))).isZero();
    }
}
