package air.samples.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import air.channels.bootstrap.PeerEnvironment;
import air.kafka.broker.LocalKafkaBroker;
import air.launcher.LocalCluster;
import air.runtime.JvmFlags;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
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
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exactly-once Kafka sink across a {@code kill -9} of a peer JVM: {@link EosJobMain} runs as 2
 * peers reading a numbered topic of 4 partitions under checkpoints; once both peers wrote checkpoint
 * 2, peer 1 is killed (the survivor fails). A {@code read_committed} consumer then sees no record
 * twice; 2 fresh peers resume from the checkpoints and finish, and {@code read_committed} reads
 * every number exactly once. The same job under replication (3 peers, one replica) survives the
 * kill of a peer without a restart, the survivors taking its share over; and the same job writing
 * rolling part files under checkpoints leaves every number once in the visible part files, after
 * the kill and after the restart. The tests share one broker, each with topics of its own.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class KafkaExactlyOnceKillIT {

    private static final int N = 200_000;
    private static final int PARTITIONS = 4;
    /** One input partition per worker of the 3 replicated peers: a peer without one ends its part at once. */
    private static final int REPLICATED_PARTITIONS = 6;
    private static final Duration DEADLINE = Duration.ofSeconds(90);
    private static final List<String> JVM = Stream.concat(Stream.of("-Xmx384m"), JvmFlags.recommended().stream()).toList();

    private static LocalKafkaBroker broker;
    private static String bootstrap;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = LocalKafkaBroker.start();
        bootstrap = broker.bootstrapServers();
    }

    @AfterAll
    static void stopBroker() throws Exception {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void a_peer_killed_under_checkpoints_leaves_every_record_once_for_read_committed(@TempDir Path dir) throws Exception {
        broker.createTopic("eos-in", PARTITIONS);
        broker.createTopic("eos-out", PARTITIONS);
        produce(bootstrap, "eos-in", PARTITIONS);
        List<String> argv = List.of(bootstrap, "eos-in", "eos-out", dir.resolve("ck").toString());

        // run 1: killed once both peers wrote checkpoint 2
        List<String> first = new ArrayList<>();
        try (LocalCluster cluster = LocalCluster.start(spec(2, argv, first))) {
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (!(contains(first, "checkpoint 2 written by peer 0") && contains(first, "checkpoint 2 written by peer 1")
                    && committedOffsets(bootstrap, "eos-out", PARTITIONS) >= N / 10)) {
                assertThat(System.nanoTime()).as("checkpoint 2 written by both peers and %d records committed before the deadline:\n%s",
                        N / 10, text(first))
                        .isLessThan(deadline);
                assertThat(cluster.isAlive(0) && cluster.isAlive(1)).as("both peers still running:\n%s", text(first)).isTrue();
                LockSupport.parkNanos(50_000_000);
            }
            cluster.kill(1);
            System.out.printf("run 1: peer 1 killed at %d committed offsets of the output%n", committedOffsets(bootstrap, "eos-out", PARTITIONS));
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
        try (LocalCluster cluster = LocalCluster.start(spec(2, argv, second))) {
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
        assertEveryValueOnce(committed, "read_committed at the end");
    }

    @Test
    void a_peer_killed_under_replication_is_taken_over_and_read_committed_sees_every_record_once(@TempDir Path dir) throws Exception {
        broker.createTopic("rep-in", REPLICATED_PARTITIONS);
        broker.createTopic("rep-out", REPLICATED_PARTITIONS);
        produce(bootstrap, "rep-in", REPLICATED_PARTITIONS);
        List<String> argv = List.of(bootstrap, "rep-in", "rep-out", dir.resolve("unused").toString(), "kafka", "replication");
        List<String> lines = new ArrayList<>();
        long started = System.nanoTime();
        // 3 peers, one replica each, on AIR's TCP transport; the survivors go on after the kill (no grace period ends them)
        LocalCluster.Spec spec = spec(3, argv, lines).withEnvironment(Map.of(PeerEnvironment.TRANSPORT, "tcp"))
                .withFailureGraceMs(TimeUnit.HOURS.toMillis(1));
        try (LocalCluster cluster = LocalCluster.start(spec)) {
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            // a peer killed before its first snapshot is replicated cannot be taken over: wait for every peer's
            while (!(contains(lines, "peer 0: state of block(s)") && contains(lines, "peer 1: state of block(s)")
                    && contains(lines, "peer 2: state of block(s)") && committedOffsets(bootstrap, "rep-out", REPLICATED_PARTITIONS) >= N / 10)) {
                assertThat(System.nanoTime()).as("every peer's state replicated and %d records committed before the deadline:\n%s",
                        N / 10, text(lines)).isLessThan(deadline);
                assertThat(cluster.isAlive(0) && cluster.isAlive(1) && cluster.isAlive(2)).as("all peers still running:\n%s", text(lines))
                        .isTrue();
                LockSupport.parkNanos(50_000_000);
            }
            cluster.kill(1);
            long committedAtKill = committedOffsets(bootstrap, "rep-out", REPLICATED_PARTITIONS);
            System.out.printf("replication: peer 1 killed at %d committed offsets of the output%n", committedAtKill);
            assertThat(committedAtKill).as("killed before the end").isLessThan(N);
            int[] codes = cluster.await(DEADLINE.toMillis() * 2);
            System.out.printf("replication: exit codes %d, %d, %d after %d ms%n", codes[0], codes[1], codes[2],
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
            print("replication", lines);
            assertThat(codes[1]).as("the killed peer").isNotZero();
            assertThat(codes[0]).as("survivor peer 0:\n%s", text(lines)).isZero();
            assertThat(codes[2]).as("survivor peer 2:\n%s", text(lines)).isZero();
        }
        assertThat(contains(lines, "TAKEOVER on peer")).as("a survivor took peer 1's share over:\n%s", text(lines)).isTrue();
        assertThat(contains(lines, "RECOVERING")).as("nobody rolled back").isFalse();
        assertThat(contains(lines, "EOS-JOB DONE on peer 0") && contains(lines, "EOS-JOB DONE on peer 2")).as(text(lines)).isTrue();

        List<String> committed = read(bootstrap, "rep-out", "read_committed");
        System.out.printf("replication at the end: read_committed sees %d records, read_uncommitted %d (of %d)%n", committed.size(),
                read(bootstrap, "rep-out", "read_uncommitted").size(), N);
        assertEveryValueOnce(committed, "read_committed at the end");
    }

    @Test
    void a_peer_killed_under_checkpoints_leaves_every_record_once_in_the_visible_rolling_files(@TempDir Path dir) throws Exception {
        broker.createTopic("files-in", PARTITIONS);
        produce(bootstrap, "files-in", PARTITIONS);
        Path out = Files.createDirectories(dir.resolve("out"));
        List<String> argv = List.of(bootstrap, "files-in", out.toString(), dir.resolve("ck").toString(), "files", "checkpoints");

        // run 1: killed once both peers wrote checkpoint 2 and some part files are visible
        List<String> first = new ArrayList<>();
        try (LocalCluster cluster = LocalCluster.start(spec(2, argv, first))) {
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (!(contains(first, "checkpoint 2 written by peer 0") && contains(first, "checkpoint 2 written by peer 1")
                    && visibleParts(out).size() >= 4)) {
                assertThat(System.nanoTime()).as("checkpoint 2 written by both peers and 4 part files visible before the deadline:\n%s",
                        text(first)).isLessThan(deadline);
                assertThat(cluster.isAlive(0) && cluster.isAlive(1)).as("both peers still running:\n%s", text(first)).isTrue();
                LockSupport.parkNanos(50_000_000);
            }
            cluster.kill(1);
            System.out.printf("files run 1: peer 1 killed with %d part files visible%n", visibleParts(out).size());
            int[] codes = cluster.await(DEADLINE.toMillis());
            System.out.printf("files run 1: exit codes %d, %d%n", codes[0], codes[1]);
            assertThat(codes[1]).as("the killed peer").isNotZero();
        }
        print("files run 1", first);
        assertThat(text(first)).as("run 1 did not finish before the kill").doesNotContain("EOS-JOB DONE");
        List<String> afterKill = readParts(out);
        System.out.printf("files after the kill: %d rows in %d visible part files, %d hidden files%n", afterKill.size(),
                visibleParts(out).size(), hiddenFiles(out).size());
        assertThat(afterKill.size()).as("rows visible after the kill").isLessThan(N);
        assertNoDuplicates(afterKill, "visible part files after the kill");

        // run 2: resumes from the checkpoints and finishes
        List<String> second = new ArrayList<>();
        long started = System.nanoTime();
        try (LocalCluster cluster = LocalCluster.start(spec(2, argv, second))) {
            int[] codes = cluster.await(DEADLINE.toMillis() * 2);
            System.out.printf("files run 2: %d ms%n", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
            print("files run 2", second);
            assertThat(codes).as(text(second)).containsOnly(0);
        }
        assertThat(text(second)).contains("RECOVERING");
        List<String> rows = readParts(out);
        System.out.printf("files at the end: %d rows in %d visible part files (of %d), hidden files %s%n", rows.size(),
                visibleParts(out).size(), N, hiddenFiles(out));
        assertThat(hiddenFiles(out)).as("no in-progress file remains").isEmpty();
        assertEveryValueOnce(rows, "visible part files at the end");
    }

    /** The committed part files of {@code dir}: {@code part-*}, in name order. */
    private static List<Path> visibleParts(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().startsWith("part-")).sorted().toList();
        }
    }

    /** The hidden (in-progress) files of {@code dir}. */
    private static List<String> hiddenFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith(".")).sorted().toList();
        }
    }

    /** Every row of the visible part files of {@code dir}. */
    private static List<String> readParts(Path dir) throws IOException {
        List<String> rows = new ArrayList<>();
        for (Path part : visibleParts(dir)) {
            rows.addAll(Files.readAllLines(part));
        }
        return rows;
    }

    private static void assertEveryValueOnce(List<String> values, String what) {
        assertNoDuplicates(values, what);
        Set<String> expected = new HashSet<>();
        for (int i = 0; i < N; i++) {
            expected.add("out-" + i);
        }
        Set<String> missing = new HashSet<>(expected);
        values.forEach(missing::remove);
        assertThat(missing.size()).as("%s: values missing, e.g. %s", what, missing.stream().limit(20).toList()).isZero();
        assertThat(values).hasSize(N);
        assertThat(new HashSet<>(values)).isEqualTo(expected);
    }

    private static LocalCluster.Spec spec(int peers, List<String> argv, List<String> lines) {
        return LocalCluster.Spec.of(peers, EosJobMain.class.getName(), argv).withJvmOptions(JVM).withOutput(line -> {
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
                    || l.contains("ERROR") || l.contains("checkpoint 2 written")
                    || l.contains("TAKEOVER") || l.contains("RUNNING again")).forEach(l -> System.out.println(run + ": " + l));
        }
    }

    /** The sum of {@code topic}'s last stable offsets: its committed records (and transaction markers). */
    private static long committedOffsets(String bootstrap, String topic, int partitions) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int i = 0; i < partitions; i++) {
                latest.put(new TopicPartition(topic, i), OffsetSpec.latest());
            }
            return admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get(30, TimeUnit.SECONDS).values()
                    .stream().mapToLong(ListOffsetsResultInfo::offset).sum();
        }
    }

    /**
     * Writes 0..N-1 round-robin over {@code topic}'s partitions, checking every send: one request in
     * flight per connection, since a freshly created topic's first produce can meet NotLeaderOrFollower
     * and, with several idempotent batches in flight, then OUT_OF_ORDER_SEQUENCE_NUMBER until the
     * delivery timeout drops the batches (seen here: values of one partition silently missing).
     */
    private static void produce(String bootstrap, String topic, int partitions) throws Exception {
        Map<String, Object> p = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.LINGER_MS_CONFIG, 5,
                ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        List<Future<RecordMetadata>> sent = new ArrayList<>(N);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < N; i++) {
                sent.add(producer.send(new ProducerRecord<>(topic, i % partitions, null, Integer.toString(i))));
            }
            producer.flush();
            for (Future<RecordMetadata> f : sent) {
                f.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
            }
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
