package air.samples.kafka;

import air.workloads.ysb.YsbEvent;
import air.workloads.ysb.YsbGenerator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The YSB-mem events of a run in a Kafka topic: event {@code i} of the generator goes to partition
 * {@code i mod partitions}, so each partition holds its events in event-time order. A topic that
 * already holds exactly the run's events (same name, partitions and count) is used as it is.
 */
public final class YsbTopic {

    private YsbTopic() {
    }

    /** The topic's name for a run: what it holds is a function of it. */
    public static String name(long n, long seed, long rate, int partitions) {
        return String.format(Locale.ROOT, "ysb-n%d-s%d-r%d-p%d", n, seed, rate, partitions);
    }

    /** Makes sure {@code topic} holds the run's events; returns how many were produced now (0: they were there). */
    public static long ensure(String bootstrap, String topic, int partitions, long n, YsbGenerator generator) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            Set<String> names = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            if (names.contains(topic)) {
                TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
                long held = 0;
                for (var p : d.partitions()) {
                    TopicPartition tp = new TopicPartition(topic, p.partition());
                    held += admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp).get(30, TimeUnit.SECONDS).offset();
                }
                if (d.partitions().size() == partitions && held == n) {
                    return 0;
                }
                throw new IllegalStateException("topic " + topic + " at " + bootstrap + " holds " + held + " records in "
                        + d.partitions().size() + " partitions, not this run's " + n + " in " + partitions + "; delete it first");
            }
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        produce(bootstrap, topic, partitions, n, generator);
        return n;
    }

    private static void produce(String bootstrap, String topic, int partitions, long n, YsbGenerator generator)
            throws InterruptedException, ExecutionException, TimeoutException {
        Map<String, Object> props = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 20, ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024,
                ProducerConfig.BUFFER_MEMORY_CONFIG, 256L << 20, ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        AtomicReference<Exception> failed = new AtomicReference<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (long i = 0; i < n && failed.get() == null; i++) {
                YsbEvent e = generator.event(i);
                producer.send(new ProducerRecord<>(topic, (int) (i % partitions), null, YsbEventBytes.encode(e)), (m, ex) -> {
                    if (ex != null) {
                        failed.compareAndSet(null, ex);
                    }
                });
            }
            producer.flush();
        }
        if (failed.get() != null) {
            throw new ExecutionException("producing the events into " + topic + " failed: " + failed.get(), failed.get());
        }
    }
}
