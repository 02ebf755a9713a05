package air.kafka.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The local broker starts from the jars its build listed, takes a record, and leaves no process or file behind. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LocalKafkaBrokerTest {

    @Test
    void startsServesAndCleansUp() throws Exception {
        Path dir;
        long pid;
        try (LocalKafkaBroker broker = LocalKafkaBroker.start()) {
            dir = broker.directory();
            pid = broker.pid();
            broker.createTopic("t", 2);
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                    broker.bootstrapServers()), new StringSerializer(), new StringSerializer())) {
                producer.send(new ProducerRecord<>("t", 1, null, "hello")).get(30, TimeUnit.SECONDS);
            }
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                    broker.bootstrapServers(), ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(),
                    new StringDeserializer())) {
                consumer.assign(List.of(new TopicPartition("t", 1)));
                ConsumerRecords<String, String> got = ConsumerRecords.empty();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (got.isEmpty() && System.nanoTime() < deadline) {
                    got = consumer.poll(Duration.ofMillis(200));
                }
                assertThat(got.records(new TopicPartition("t", 1))).extracting(r -> r.value()).containsExactly("hello");
            }
        }
        assertThat(Files.exists(dir)).as("its directory is removed").isFalse();
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("its process is gone").isFalse();
    }
}
