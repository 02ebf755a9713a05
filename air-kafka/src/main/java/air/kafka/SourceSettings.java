package air.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/** What a {@link KafkaSource} was told: shared, immutable, by its splits and their readers. */
record SourceSettings(String bootstrap, String topic, boolean bounded, boolean latest, Duration discoveryInterval,
                      Duration pollTimeout, Map<String, Object> properties) {

    private static final AtomicLong CLIENTS = new AtomicLong();

    /** The properties of a consumer that reads by assign and seek only: no group, no commits, no topic created by asking. */
    Map<String, Object> consumerProperties(String purpose) {
        Map<String, Object> p = new HashMap<>();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        // a position the broker no longer has (deleted by retention while the job was down): go on from the oldest record kept
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        // Kafka's 64 KiB socket buffer caps a reader that polls without waiting at about 1.1M small records/s on loopback
        // (measured with ./air bench kafka: the source waited on the socket); the user's properties still win
        p.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, 4 << 20);
        p.putAll(properties);
        // every client its own id (a shared one clashes in JMX), the user's as a prefix; and never a commit
        Object prefix = properties.getOrDefault(ConsumerConfig.CLIENT_ID_CONFIG, "air");
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, prefix + "-" + purpose + "-" + CLIENTS.incrementAndGet());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return p;
    }

    String describe() {
        return "kafka(" + topic + "@" + bootstrap + (bounded ? ", bounded" : "") + (latest ? ", from latest" : "") + ")";
    }
}
