package air.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.dsl.Checkpoints;
import air.dsl.Pipeline;
import air.dsl.Sources;
import air.kafka.broker.LocalKafkaBroker;
import air.runtime.JobConfig;
import air.runtime.JobFailedException;
import air.runtime.api.Emitter;
import air.runtime.api.SourceFactory;
import air.runtime.api.SourceReader;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongPredicate;
import java.util.stream.LongStream;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exactly-once Kafka sink against Kafka's own broker (one child JVM for the class): a job
 * with checkpoints fails while the transactions of complete checkpoints are still to be committed,
 * a {@code read_committed} consumer then sees only what was committed; the job resumes, writes
 * those transactions again and fails once more before any checkpoint, and resumes again from the
 * same checkpoint: every record is there once for {@code read_committed} consumers, the aborted
 * attempts only for {@code read_uncommitted} ones. A job without checkpoints is refused.
 */
class KafkaExactlyOnceTest {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaExactlyOnceTest.class);
    private static final long N = 6_000;
    /** In the paced run, each source instance emits this many records per complete checkpoint. */
    private static final long BLOCK = 300;
    private static final int PARTITIONS = 3;
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

    /**
     * What the sink's instances report; with {@code hold}, every commit after the first
     * transaction with records is held back (the checkpoint completes, its commit does not come);
     * with {@code vanish}, a failed writer leaves its transactions open, as a killed process would.
     */
    static final class Watch implements KafkaExactlyOnceSink.Probe {
        final boolean hold;
        /** At the failure, the writers vanish as a killed process would, their transactions left open. */
        final boolean vanish;
        /** The first checkpoint whose transactions are held back. */
        final AtomicLong heldFrom = new AtomicLong(Long.MAX_VALUE);
        final AtomicLong oldestHeldWithRecords = new AtomicLong(Long.MAX_VALUE);
        /** The newest checkpoint known complete everywhere (its commit was asked for). */
        final AtomicLong newestComplete = new AtomicLong();
        final AtomicLong committedRecords = new AtomicLong();
        final AtomicInteger preCommits = new AtomicInteger();
        final AtomicLong rewritten = new AtomicLong();
        final AtomicInteger restores = new AtomicInteger();

        Watch(boolean hold) {
            this(hold, false);
        }

        Watch(boolean hold, boolean vanish) {
            this.hold = hold;
            this.vanish = vanish;
        }

        @Override
        public boolean abortsOnFailure() {
            return !vanish;
        }

        @Override
        public boolean mayCommit(int instance, long checkpointId) {
            return !hold || checkpointId < heldFrom.get();
        }

        @Override
        public void preCommitted(int instance, long checkpointId, int records) {
            if (records == 0) {
                return;
            }
            preCommits.incrementAndGet();
            if (hold) {
                heldFrom.compareAndSet(Long.MAX_VALUE, checkpointId + 1);
                if (checkpointId >= heldFrom.get()) {
                    oldestHeldWithRecords.accumulateAndGet(checkpointId, Math::min);
                }
            }
        }

        @Override
        public void commitAsked(int instance, long checkpointId) {
            newestComplete.accumulateAndGet(checkpointId, Math::max);
        }

        @Override
        public void committed(int instance, long checkpointId, int records) {
            committedRecords.addAndGet(records);
        }

        @Override
        public void restored(int instance, int records) {
            rewritten.addAndGet(records);
            restores.incrementAndGet();
        }

        /** A transaction was committed, and a later one with records is held back although its checkpoint is complete. */
        boolean heldAndComplete() {
            return committedRecords.get() > 0 && oldestHeldWithRecords.get() <= newestComplete.get();
        }
    }

    /**
     * The numbers {@code 0 .. n-1}, instance {@code i} of {@code p} emitting {@code i, i+p, ...}
     * (its position: the next of them); with {@code may}, an instance emits its {@code k}-th
     * number only once {@code may.test(k)}: records keep coming while checkpoints complete, and
     * never run out first. Resumed onto another layout, it passes over the numbers emitted before.
     */
    record PacedSource(long n, LongPredicate may) implements SourceFactory<Long> {
        @Override
        public SourceReader<Long> createReader(int instance, int parallelism) {
            return new SourceReader<>() {
                private long next = instance;
                private List<long[]> before = List.of();

                @Override
                public int read(int max, Emitter<? super Long> out) {
                    if (next >= n) {
                        return EXHAUSTED;
                    }
                    int k = 0;
                    while (k < max && next < n && (may == null || may.test(next / parallelism))) {
                        if (!emittedBefore(next)) {
                            out.emit(next);
                            k++;
                        }
                        next += parallelism;
                    }
                    return k;
                }

                private boolean emittedBefore(long x) {
                    for (long[] layout : before) {
                        if (x < layout[(int) (x % layout.length)]) {
                            return true;
                        }
                    }
                    return false;
                }

                @Override
                public long position() {
                    return next;
                }

                @Override
                public void seek(long p) {
                    next = p;
                }

                @Override
                public void resumeAfter(List<long[]> earlierLayouts) {
                    before = List.copyOf(earlierLayouts);
                }
            };
        }

        @Override
        public String describe() {
            return "paced numbers";
        }
    }

    /**
     * One job for every run (operator ids follow the call sites): numbers keyed {@code k<n>} into
     * {@code topic}, exactly once, on {@code workers} (2 unless given), checkpoints every {@code intervalMs} into {@code checkpoints};
     * the source emits as {@code may} lets it ({@link PacedSource}); a map throws once, at the first
     * record after {@code failWhen} holds.
     */
    private static void run(String topic, Path checkpoints, long intervalMs, Watch watch, LongPredicate may, BooleanSupplier failWhen,
                            SimpleMeterRegistry registry) {
        run(topic, checkpoints, 2, intervalMs, watch, may, failWhen, registry);
    }

    private static void run(String topic, Path checkpoints, int workers, long intervalMs, Watch watch, LongPredicate may, BooleanSupplier failWhen,
                            SimpleMeterRegistry registry) {
        AtomicBoolean armed = new AtomicBoolean(failWhen != null);
        Pipeline p = Pipeline.create();
        p.readFrom(new PacedSource(N, may))
                .map(v -> {
                    if (armed.get() && failWhen.getAsBoolean() && armed.getAndSet(false)) {
                        throw new IllegalStateException("injected failure");
                    }
                    return v;
                })
                .writeTo(KafkaSinks.exactlyOnce(broker.bootstrapServers(), topic, (Long v) -> Long.toString(v).getBytes(StandardCharsets.UTF_8),
                                v -> ("k" + v).getBytes(StandardCharsets.UTF_8))
                        .transactionalIdPrefix("test-" + topic).property(ProducerConfig.LINGER_MS_CONFIG, 5).probe(watch));
        p.execute(JobConfig.defaults().name("kafka-exactly-once").workers(workers).checkpoints(Checkpoints.toDirectory(checkpoints), intervalMs)
                .meterRegistry(registry));
    }

    /** Each source instance emits {@link #BLOCK} records per checkpoint complete everywhere. */
    private static LongPredicate pacedBy(Watch watch) {
        return k -> k < BLOCK * (1 + watch.newestComplete.get());
    }

    /** A record read back: where it is and the number it holds. */
    record Read(int partition, long offset, long value) {
    }

    /** The end offsets of {@code topic}'s partitions, summed: the high watermarks, or with read_committed the last stable offsets. */
    private static long endOffsets(String topic, IsolationLevel isolation) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int i = 0; i < PARTITIONS; i++) {
                latest.put(new TopicPartition(topic, i), OffsetSpec.latest());
            }
            return admin.listOffsets(latest, new ListOffsetsOptions(isolation)).all().get(30, TimeUnit.SECONDS).values().stream()
                    .mapToLong(ListOffsetsResultInfo::offset).sum();
        }
    }

    /**
     * Waits until no transaction of {@code topic} is open: every last stable offset is the high
     * watermark (a committed or aborted transaction's markers reach its partitions shortly after
     * its producer returns).
     */
    private static void awaitSettled(String topic) throws Exception {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (endOffsets(topic, IsolationLevel.READ_COMMITTED) < endOffsets(topic, IsolationLevel.READ_UNCOMMITTED)) {
            assertThat(System.nanoTime()).as("the transactions of " + topic + " end before the deadline").isLessThan(deadline);
            LockSupport.parkNanos(5_000_000);
        }
    }

    /** Every record of {@code topic} up to its end for a consumer of {@code isolation} (read_committed: the last stable offset). */
    private static List<Read> read(String topic, String isolation) {
        Map<String, Object> p = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false, ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        List<Read> out = new ArrayList<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            List<TopicPartition> partitions = c.partitionsFor(topic).stream().map(i -> new TopicPartition(topic, i.partition())).toList();
            c.assign(partitions);
            c.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = c.endOffsets(partitions);
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (!partitions.stream().allMatch(tp -> c.position(tp) >= end.get(tp))) {
                assertThat(System.nanoTime()).as("read back " + topic + " before the deadline").isLessThan(deadline);
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    out.add(new Read(r.partition(), r.offset(), Long.parseLong(r.value())));
                }
            }
        }
        return out;
    }

    private static List<Long> sortedValues(List<Read> reads) {
        return reads.stream().map(Read::value).sorted().toList();
    }

    private static void assertEachValueOnce(List<Read> reads, String what) {
        Set<Long> seen = new HashSet<>();
        for (Read r : reads) {
            assertThat(seen.add(r.value())).as(what + ": %d once (partition %d, offset %d)", r.value(), r.partition(), r.offset()).isTrue();
        }
    }

    private static double count(SimpleMeterRegistry registry, String name) {
        return registry.find(name).counters().stream().mapToDouble(Counter::count).sum();
    }

    /** Every producer the sink made is closed (each registers an MBean while open). */
    private static void assertNoProducerLeft() throws MalformedObjectNameException {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        List<String> open = new ArrayList<>();
        for (ObjectName n : server.queryNames(new ObjectName("kafka.producer:type=app-info,*"), null)) {
            if (n.getKeyProperty("id").startsWith("air-")) {
                open.add(n.getKeyProperty("id"));
            }
        }
        assertThat(open).as("producers of the sink still open").isEmpty();
    }

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void failures_and_restores_leave_every_record_once_for_read_committed_consumers(@TempDir Path dir) throws Exception {
        String topic = "exactly-once";
        broker.createTopic(topic, PARTITIONS);
        Path checkpoints = dir.resolve("checkpoints");

        // 1. commits its first transaction with records, holds back the later ones, fails once one of those is complete
        Watch first = new Watch(true);
        SimpleMeterRegistry r1 = new SimpleMeterRegistry();
        assertThatThrownBy(() -> run(topic, checkpoints, 50, first, pacedBy(first), first::heldAndComplete, r1))
                .isInstanceOf(JobFailedException.class).hasMessageContaining("injected failure");
        assertThat(count(r1, "air.checkpoints")).as("checkpoints written before the failure").isGreaterThanOrEqualTo(2);
        awaitSettled(topic); // the failed run aborted its transactions: none holds consumers back
        List<Read> committedAfterFailure = read(topic, "read_committed");
        List<Read> uncommittedAfterFailure = read(topic, "read_uncommitted");
        LOG.info("after the failure: read_committed sees {} records, read_uncommitted {}; the sink committed {}", committedAfterFailure.size(),
                uncommittedAfterFailure.size(), first.committedRecords.get());
        assertThat(committedAfterFailure).as("read_committed: what the failed run committed, no more").isNotEmpty()
                .hasSize((int) first.committedRecords.get());
        assertEachValueOnce(committedAfterFailure, "committed before the failure");
        assertThat(uncommittedAfterFailure.size()).as("read_uncommitted also sees the records of the transactions aborted at the failure")
                .isGreaterThan(committedAfterFailure.size());
        assertThat(uncommittedAfterFailure).containsAll(committedAfterFailure);
        assertNoProducerLeft();

        // 2. resumes: writes again what the checkpoint holds as pre-committed, then fails before any checkpoint of its own (none is
        // due), at the one record its source emits once both writers are restored (no instance reaches its end of input)
        Watch second = new Watch(false);
        SimpleMeterRegistry r2 = new SimpleMeterRegistry();
        AtomicInteger oneRecord = new AtomicInteger(1);
        assertThatThrownBy(() -> run(topic, checkpoints, 60_000, second, k -> second.restores.get() == 2 && oneRecord.getAndDecrement() > 0,
                () -> true, r2))
                .isInstanceOf(JobFailedException.class).hasMessageContaining("injected failure");
        assertThat(count(r2, "air.recoveries")).as("the second run resumed from a checkpoint").isEqualTo(1);
        assertThat(second.rewritten.get()).as("records of the held transactions, written again by the restore").isPositive();
        assertThat(second.preCommits.get()).as("no checkpoint of the second run").isZero();
        awaitSettled(topic);
        List<Read> committedAfterRestore = read(topic, "read_committed");
        assertEachValueOnce(committedAfterRestore, "committed after the restore");
        assertThat(committedAfterRestore).as("nothing read_committed saw is taken back or written again").containsAll(committedAfterFailure)
                .hasSize(committedAfterFailure.size() + (int) second.rewritten.get());
        assertNoProducerLeft();

        // 3. resumes from the same checkpoint: the commit marker says its pending transactions are committed, and the job ends
        Watch third = new Watch(false);
        SimpleMeterRegistry r3 = new SimpleMeterRegistry();
        run(topic, checkpoints, 50, third, null, null, r3);
        assertThat(count(r3, "air.recoveries")).isEqualTo(1);
        assertThat(third.rewritten.get()).as("a restore repeated from the same checkpoint writes nothing again").isZero();
        awaitSettled(topic);
        List<Read> committed = read(topic, "read_committed");
        List<Read> uncommitted = read(topic, "read_uncommitted");
        LOG.info("at the end: read_committed sees {} records ({} expected), read_uncommitted {}", committed.size(), N, uncommitted.size());
        assertThat(sortedValues(committed)).as("read_committed: every record once").isEqualTo(LongStream.range(0, N).boxed().toList());
        assertThat(committed).containsAll(committedAfterRestore);
        assertThat(uncommitted.size()).as("read_uncommitted: the aborted attempts too").isGreaterThan(committed.size());
        assertThat(new HashSet<>(sortedValues(uncommitted))).isEqualTo(new HashSet<>(sortedValues(committed)));
        assertNoProducerLeft();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void a_vanished_run_resumed_on_more_workers_leaves_every_record_once_for_read_committed_consumers(@TempDir Path dir) throws Exception {
        String topic = "exactly-once-rescaled";
        broker.createTopic(topic, PARTITIONS);
        Path checkpoints = dir.resolve("checkpoints");
        // the failed run vanishes as if killed: its transactions, open and pre-committed, stay open on the broker
        Watch first = new Watch(true, true);
        assertThatThrownBy(() -> run(topic, checkpoints, 2, 50, first, pacedBy(first), first::heldAndComplete, new SimpleMeterRegistry()))
                .isInstanceOf(JobFailedException.class).hasMessageContaining("injected failure");
        List<Read> committedAfterFailure = read(topic, "read_committed");
        List<Read> uncommittedAfterFailure = read(topic, "read_uncommitted");
        LOG.info("after a failure leaving its transactions open: read_committed sees {} records (up to the last stable offsets), "
                + "read_uncommitted {}; the sink committed {}", committedAfterFailure.size(), uncommittedAfterFailure.size(),
                first.committedRecords.get());
        assertEachValueOnce(committedAfterFailure, "committed before the failure");
        assertThat(committedAfterFailure.size()).as("read_committed: committed records only, held back by the open transactions")
                .isLessThanOrEqualTo((int) first.committedRecords.get());
        assertThat(uncommittedAfterFailure.size()).isGreaterThan(committedAfterFailure.size());
        assertThat(endOffsets(topic, IsolationLevel.READ_COMMITTED)).as("the transactions left open hold the last stable offsets back")
                .isLessThan(endOffsets(topic, IsolationLevel.READ_UNCOMMITTED));

        // 3 writers take over the 2 earlier ones' ids (0 -> 0, 1 -> 1): fence them, aborting what was left open, write the pending
        // transactions again; then they write with ids of their own layout
        Watch second = new Watch(false);
        SimpleMeterRegistry r2 = new SimpleMeterRegistry();
        run(topic, checkpoints, 3, 50, second, null, null, r2);
        assertThat(count(r2, "air.recoveries")).isEqualTo(1);
        assertThat(second.restores.get()).as("every writer of the new layout restored").isEqualTo(3);
        assertThat(second.rewritten.get()).as("the held transactions, written again").isPositive();
        awaitSettled(topic); // the restore fenced the ids of the vanished run, aborting what it left open
        List<Read> committed = read(topic, "read_committed");
        LOG.info("rescaled: read_committed sees {} records ({} expected), read_uncommitted {}", committed.size(), N,
                read(topic, "read_uncommitted").size());
        assertThat(sortedValues(committed)).as("read_committed: every record once").isEqualTo(LongStream.range(0, N).boxed().toList());
        assertThat(committed).containsAll(committedAfterFailure);
        assertNoProducerLeft();
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void a_restore_refuses_to_go_on_when_another_job_wrote_with_the_same_transactional_ids(@TempDir Path dir) throws Exception {
        String topic = "exactly-once-shared";
        broker.createTopic(topic, PARTITIONS);
        Watch first = new Watch(true);
        assertThatThrownBy(() -> run(topic, dir.resolve("a"), 2, 50, first, pacedBy(first), first::heldAndComplete, new SimpleMeterRegistry()))
                .isInstanceOf(JobFailedException.class).hasMessageContaining("injected failure");
        // another job, same prefix ("test-" + topic): each of its instances takes the ids of the same instance of the first job and
        // writes its own commit marker (the one with pending transactions, at least, fails its restore then)
        Pipeline other = Pipeline.create();
        other.readFrom(Sources.fromList(LongStream.range(0, 100).boxed().toList()))
                .writeTo(KafkaSinks.exactlyOnce(broker.bootstrapServers(), topic, (Long v) -> Long.toString(v).getBytes(StandardCharsets.UTF_8))
                        .transactionalIdPrefix("test-" + topic));
        other.execute(JobConfig.defaults().name("kafka-exactly-once-other").workers(2).checkpoints(Checkpoints.toDirectory(dir.resolve("b")), 50));

        assertThatThrownBy(() -> run(topic, dir.resolve("a"), 2, 50, new Watch(false), null, null, new SimpleMeterRegistry()))
                .isInstanceOf(JobFailedException.class).hasMessageContaining("is another writer's")
                .hasMessageContaining("transactionalIdPrefix");
        assertNoProducerLeft();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void a_job_without_checkpoints_is_refused_at_its_first_record() throws Exception {
        String topic = "exactly-once-plain";
        broker.createTopic(topic, PARTITIONS);
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.fromList(List.of("1", "2", "3")))
                .writeTo(KafkaSinks.exactlyOnce(broker.bootstrapServers(), topic, (String s) -> s.getBytes(StandardCharsets.UTF_8)));
        assertThatThrownBy(() -> p.execute(JobConfig.defaults().name("kafka-exactly-once-plain").workers(2)))
                .isInstanceOf(JobFailedException.class).hasMessageContaining("needs a job with checkpoints or replicas")
                .hasMessageContaining("KafkaSinks.atLeastOnce");
        assertThat(read(topic, "read_uncommitted")).as("nothing written").isEmpty();
        assertNoProducerLeft();
    }

    @Test
    void the_sink_keeps_its_own_producer_settings() {
        KafkaExactlyOnceSink<String> sink = KafkaSinks.exactlyOnce("localhost:9092", "t", (String s) -> s.getBytes(StandardCharsets.UTF_8));
        assertThat(sink.transactionalIdPrefix()).isEqualTo("air-t");
        assertThat(sink.transactionalIdPrefix("job-7").transactionalIdPrefix()).isEqualTo("job-7");
        assertThat(sink.transactionTimeout()).isEqualTo(KafkaExactlyOnceSink.DEFAULT_TRANSACTION_TIMEOUT);
        assertThat(sink.property(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 60_000).transactionTimeout()).isEqualTo(Duration.ofMinutes(1));
        for (String own : List.of(ProducerConfig.ACKS_CONFIG, ProducerConfig.TRANSACTIONAL_ID_CONFIG, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG)) {
            assertThatThrownBy(() -> sink.property(own, "x")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("the sink's own");
        }
        assertThatThrownBy(() -> sink.property(ProducerConfig.TRANSACTION_TWO_PHASE_COMMIT_ENABLE_CONFIG, true))
                .hasMessageContaining("KIP-939");
        assertThatThrownBy(() -> sink.transactionalIdPool(1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> sink.transactionalIdPrefix(" ")).isInstanceOf(IllegalArgumentException.class);
    }
}
