package air.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.dsl.Checkpoints;
import air.dsl.Pipeline;
import air.dsl.Sinks;
import air.dsl.Sources;
import air.kafka.broker.LocalKafkaBroker;
import air.runtime.Job;
import air.runtime.JobConfig;
import air.runtime.JobFailedException;
import air.runtime.api.BadRecordPolicy;
import air.runtime.api.CheckpointStore;
import air.runtime.sink.CollectSink;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka source and sink against Kafka's own broker (one child JVM for the class): every record
 * once from a bounded read, bad records skipped and counted or failing the job with their origin,
 * a quiet partition holding nothing up, partitions added while running, a broker restart mid-run,
 * a rollback to a checkpoint rewinding the offsets exactly, and the at-least-once sink.
 */
class KafkaConnectorTest {

    private static final int N = 20_000;
    private static final int PARTITIONS = 4;
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private static LocalKafkaBroker broker;

    @BeforeAll
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    static void startBroker() throws IOException {
        broker = LocalKafkaBroker.start();
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    /** A record read from Kafka: where it was and the number it holds. */
    record Read(int partition, long offset, long value) {
    }

    private static KafkaSource<Read> numbers(String topic) {
        return KafkaSources.records(broker.bootstrapServers(), topic,
                r -> new Read(r.partition(), r.offset(), Long.parseLong(new String(r.value(), StandardCharsets.UTF_8))));
    }

    /** Creates {@code topic} and writes the numbers {@code 0 .. n-1}, keyed {@code k<i>} (so spread over the partitions). */
    private static void fill(String topic, int n, Map<String, Object> producerProperties) {
        broker.createTopic(topic, PARTITIONS);
        produce(n, i -> new ProducerRecord<>(topic, "k" + i, Long.toString(i)), producerProperties);
    }

    private static void produce(int n, IntFunction<ProducerRecord<String, String>> record, Map<String, Object> producerProperties) {
        broker.send(IntStream.range(0, n).mapToObj(record).toList(), producerProperties);
    }

    /** Every record of {@code topic} up to its end offsets now, from the beginning, with a plain consumer. */
    private static List<ConsumerRecord<String, String>> readBack(String topic) {
        Map<String, Object> p = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = c.partitionsFor(topic).stream().map(i -> new TopicPartition(topic, i.partition())).toList();
            c.assign(partitions);
            c.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = c.endOffsets(partitions);
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (!partitions.stream().allMatch(tp -> c.position(tp) >= end.get(tp))) {
                assertThat(System.nanoTime()).as("read back " + topic + " before the deadline").isLessThan(deadline);
                c.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
    }

    /** The records read: each (partition, offset) once, each partition's offsets from 0 on without a gap. */
    private static void assertEachOffsetOnce(Collection<Read> items, int partitions) {
        Map<Integer, Set<Long>> offsets = new TreeMap<>();
        for (Read r : items) {
            assertThat(offsets.computeIfAbsent(r.partition(), k -> new HashSet<>()).add(r.offset()))
                    .as("record at partition %d offset %d read once", r.partition(), r.offset()).isTrue();
        }
        assertThat(offsets).as("every partition has records").hasSize(partitions);
        offsets.forEach((partition, set) -> assertThat(set).as("partition " + partition)
                .containsExactlyInAnyOrderElementsOf(LongStream.range(0, set.size()).boxed().toList()));
    }

    private static List<Long> sortedValues(Collection<Read> items) {
        return items.stream().map(Read::value).sorted().toList();
    }

    private static List<Long> range(long n) {
        return LongStream.range(0, n).boxed().toList();
    }

    /** Every consumer and producer the connector made is closed (each registers an MBean while open). */
    private static void assertNoClientLeft() throws MalformedObjectNameException {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        List<String> open = new ArrayList<>();
        for (String type : List.of("kafka.consumer", "kafka.producer")) {
            for (ObjectName n : server.queryNames(new ObjectName(type + ":type=app-info,*"), null)) {
                if (n.getKeyProperty("id").startsWith("air-")) {
                    open.add(n.getKeyProperty("id"));
                }
            }
        }
        assertThat(open).as("Kafka clients of the connector still open").isEmpty();
    }

    private static double count(SimpleMeterRegistry registry, String name) {
        return registry.find(name).counters().stream().mapToDouble(Counter::count).sum();
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void a_bounded_source_reads_every_record_of_every_partition_once() throws Exception {
        fill("numbers", N, Map.of());
        CollectSink<Read> sink = Sinks.collect();
        Pipeline p = Pipeline.create();
        p.readFrom(numbers("numbers").bounded()).writeTo(sink);
        p.execute(JobConfig.defaults().name("kafka-bounded").workers(2));

        List<Read> items = sink.items();
        assertThat(items).hasSize(N);
        assertThat(items.stream().mapToLong(Read::value).sum()).isEqualTo((long) N * (N - 1) / 2);
        assertThat(sortedValues(items)).isEqualTo(range(N));
        assertEachOffsetOnce(items, PARTITIONS);
        assertNoClientLeft();
    }

    /** Every 101st number does not deserialise. */
    private static final KafkaDeserializer<Long> PICKY = value -> {
        long v = Long.parseLong(new String(value, StandardCharsets.UTF_8));
        if (v % 101 == 0) {
            throw new IllegalArgumentException("no multiples of 101: " + v);
        }
        return v;
    };

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void records_that_do_not_deserialise_are_skipped_and_counted_or_fail_the_job_naming_their_offset() {
        fill("picky", N, Map.of());
        List<Long> good = range(N).stream().filter(v -> v % 101 != 0).toList();

        CollectSink<Long> sink = Sinks.collect();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Pipeline p = Pipeline.create();
        p.readFrom(KafkaSources.source(broker.bootstrapServers(), "picky", PICKY).bounded().onBadRecord(BadRecordPolicy.skip()))
                .writeTo(sink);
        p.execute(JobConfig.defaults().name("kafka-skip").workers(2).meterRegistry(registry));
        assertThat(sink.items().stream().sorted().toList()).isEqualTo(good);
        assertThat(count(registry, "air.records.bad")).isEqualTo(N - good.size());

        Pipeline failing = Pipeline.create();
        failing.readFrom(KafkaSources.source(broker.bootstrapServers(), "picky", PICKY).bounded()).writeTo(Sinks.collect());
        Throwable thrown = null;
        try {
            failing.execute(JobConfig.defaults().name("kafka-fail").workers(2));
        } catch (JobFailedException e) {
            thrown = e;
        }
        assertThat(thrown).as("the job failed").isNotNull();
        Matcher m = Pattern.compile("picky-(\\d+)@(\\d+)").matcher(thrown.getMessage());
        assertThat(m.find()).as("the message names the record: " + thrown.getMessage()).isTrue();
        assertThat(thrown.getMessage()).contains("no multiples of 101");
        // the record named is a bad one
        TopicPartition tp = new TopicPartition("picky", Integer.parseInt(m.group(1)));
        ConsumerRecord<String, String> named = readBack("picky").stream()
                .filter(r -> r.partition() == tp.partition() && r.offset() == Long.parseLong(m.group(2))).findFirst().orElseThrow();
        assertThat(Long.parseLong(named.value()) % 101).isZero();
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void an_unbounded_source_reads_live_records_past_a_quiet_partition_and_finds_new_partitions() throws Exception {
        String topic = "live";
        broker.createTopic(topic, PARTITIONS);
        // partition 3 gets nothing
        produce(1_000, i -> new ProducerRecord<>(topic, i % 3, null, Long.toString(i)), Map.of());
        Queue<Long> received = new ConcurrentLinkedQueue<>();
        AtomicLong count = new AtomicLong();
        CountDownLatch first = new CountDownLatch(1);
        CountDownLatch all = new CountDownLatch(1);
        Pipeline p = Pipeline.create();
        p.readFrom(KafkaSources.source(broker.bootstrapServers(), topic, KafkaDeserializer.strings())
                        .discoveryInterval(Duration.ofMillis(300)))
                .map(Long::parseLong)
                .writeTo(Sinks.callback(v -> {
                    received.add(v);
                    long c = count.incrementAndGet();
                    if (c == 2_000) {
                        first.countDown();
                    } else if (c == 2_500) {
                        all.countDown();
                    }
                }));
        Job job = p.submit(JobConfig.defaults().name("kafka-live").workers(2));
        try {
            produce(1_000, i -> new ProducerRecord<>(topic, i % 3, null, Long.toString(1_000 + i)), Map.of());
            assertThat(first.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).as("the first 2000 records arrive").isTrue();
            broker.addPartitions(topic, 6);
            produce(500, i -> new ProducerRecord<>(topic, 5, null, Long.toString(2_000 + i)), Map.of());
            assertThat(all.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).as("the records of the new partition 5 arrive").isTrue();
        } finally {
            job.cancel();
            job.join();
        }
        assertThat(received.stream().sorted().toList()).isEqualTo(range(2_500));
        assertNoClientLeft();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void a_bounded_read_survives_a_broker_restart_and_reads_every_record_once() throws Exception {
        // small batches and small fetches, so that most of the data is fetched after the restart
        fill("restart", N, Map.of(ProducerConfig.BATCH_SIZE_CONFIG, 1_024, ProducerConfig.LINGER_MS_CONFIG, 0));
        CountDownLatch reached = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        AtomicLong seen = new AtomicLong();
        CollectSink<Read> sink = Sinks.collect();
        Pipeline p = Pipeline.create();
        p.readFrom(numbers("restart").bounded().property(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 2_048))
                .map(r -> {
                    if (seen.incrementAndGet() >= N / 10) {
                        reached.countDown();
                        awaitQuietly(resume);
                    }
                    return r;
                })
                .writeTo(sink);
        Job job = p.submit(JobConfig.defaults().name("kafka-restart").workers(2));
        try {
            assertThat(reached.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).as("a tenth of the records read").isTrue();
            broker.stop();
            resume.countDown();
            broker.startAgain();
            job.join();
        } finally {
            resume.countDown();
            job.cancel();
        }
        List<Read> items = sink.items();
        assertThat(sortedValues(items)).isEqualTo(range(N));
        assertEachOffsetOnce(items, PARTITIONS);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Runs a job reading {@code topic} with checkpoints every 50 ms into {@code store}; with
     * {@code fail}, a map throws once two checkpoints were taken. The map slows the read down so
     * that checkpoints are taken while it runs.
     */
    private static void runCheckpointed(String topic, CheckpointStore store, CollectSink<Read> sink, boolean fail,
                                        SimpleMeterRegistry registry) {
        AtomicBoolean armed = new AtomicBoolean(fail);
        AtomicLong seen = new AtomicLong();
        Pipeline p = Pipeline.create();
        p.readFrom(numbers(topic).bounded())
                .map(r -> {
                    if (seen.incrementAndGet() % 20 == 0) {
                        LockSupport.parkNanos(1_000_000);
                        if (armed.get() && count(registry, "air.checkpoints") >= 2 && armed.getAndSet(false)) {
                            throw new IllegalStateException("injected failure");
                        }
                    }
                    return r;
                })
                .writeTo(sink);
        p.execute(JobConfig.defaults().name("kafka-rollback").workers(2).checkpoints(store, 50).meterRegistry(registry));
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void a_rollback_to_a_checkpoint_rewinds_the_offsets_exactly(@TempDir Path dir) {
        fill("rollback", N, Map.of());
        CheckpointStore store = Checkpoints.toDirectory(dir);
        CollectSink<Read> sink = Sinks.collect();
        SimpleMeterRegistry first = new SimpleMeterRegistry();
        assertThatThrownBy(() -> runCheckpointed("rollback", store, sink, true, first))
                .isInstanceOf(JobFailedException.class).hasMessageContaining("injected failure");
        assertThat(count(first, "air.checkpoints")).isGreaterThanOrEqualTo(2);

        SimpleMeterRegistry second = new SimpleMeterRegistry();
        runCheckpointed("rollback", store, sink, false, second);
        assertThat(count(second, "air.recoveries")).as("the second run resumed from a checkpoint").isEqualTo(1);
        List<Read> items = sink.items();
        assertThat(sortedValues(items)).isEqualTo(range(N));
        assertEachOffsetOnce(items, PARTITIONS);
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void the_at_least_once_sink_writes_every_record_of_a_job() throws Exception {
        broker.createTopic("out", PARTITIONS);
        List<String> values = range(N).stream().map(v -> "v" + v).toList();
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.fromList(values))
                .writeTo(KafkaSinks.atLeastOnce(broker.bootstrapServers(), "out", (String s) -> s.getBytes(StandardCharsets.UTF_8),
                        s -> s.getBytes(StandardCharsets.UTF_8)));
        p.execute(JobConfig.defaults().name("kafka-sink").workers(2));

        List<ConsumerRecord<String, String>> back = readBack("out");
        assertThat(back.stream().map(ConsumerRecord::value).sorted().toList()).isEqualTo(values.stream().sorted().toList());
        assertThat(back).allSatisfy(r -> assertThat(r.key()).isEqualTo(r.value()));
        assertThat(back.stream().map(ConsumerRecord::partition).distinct().count()).as("keys spread over the partitions").isEqualTo(PARTITIONS);
        assertNoClientLeft();
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void the_at_least_once_sink_writes_every_record_again_after_a_rollback(@TempDir Path dir) {
        broker.createTopic("out-rollback", PARTITIONS);
        List<String> values = range(N).stream().map(v -> "v" + v).toList();
        CheckpointStore store = Checkpoints.toDirectory(dir);
        SimpleMeterRegistry first = new SimpleMeterRegistry();
        assertThatThrownBy(() -> runSinkCheckpointed(values, store, true, first))
                .isInstanceOf(JobFailedException.class).hasMessageContaining("injected failure");
        SimpleMeterRegistry second = new SimpleMeterRegistry();
        runSinkCheckpointed(values, store, false, second);
        assertThat(count(second, "air.recoveries")).isEqualTo(1);

        List<String> back = readBack("out-rollback").stream().map(ConsumerRecord::value).toList();
        assertThat(new HashSet<>(back)).as("every record at least once").isEqualTo(new HashSet<>(values));
        assertThat(back.size()).as("records written before the failure and after the checkpoint are there twice")
                .isGreaterThanOrEqualTo(values.size());
    }

    private static void runSinkCheckpointed(List<String> values, CheckpointStore store, boolean fail, SimpleMeterRegistry registry) {
        AtomicBoolean armed = new AtomicBoolean(fail);
        AtomicLong seen = new AtomicLong();
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.fromList(values))
                .map(v -> {
                    if (seen.incrementAndGet() % 20 == 0) {
                        LockSupport.parkNanos(1_000_000);
                        if (armed.get() && count(registry, "air.checkpoints") >= 2 && armed.getAndSet(false)) {
                            throw new IllegalStateException("injected failure");
                        }
                    }
                    return v;
                })
                .writeTo(KafkaSinks.atLeastOnce(broker.bootstrapServers(), "out-rollback", s -> s.getBytes(StandardCharsets.UTF_8)));
        p.execute(JobConfig.defaults().name("kafka-sink-rollback").workers(2).checkpoints(store, 50).meterRegistry(registry));
    }
}
