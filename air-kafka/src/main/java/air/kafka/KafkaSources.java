package air.kafka;

import air.runtime.api.BadRecordPolicy;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Sources reading Kafka topics: a split per partition, positions (the next offset of each
 * partition) kept in the job's checkpoints. Set up the source returned with its methods
 * ({@link KafkaSource#bounded}, {@link KafkaSource#startFromLatest}, {@link KafkaSource#property}, ...).
 *
 * <pre>{@code
 * p.readFrom(KafkaSources.strings("localhost:9092", "clicks").onBadRecord(BadRecordPolicy.skip()))
 * }</pre>
 */
public final class KafkaSources {

    private KafkaSources() {
    }

    /** Each record's value, deserialised by {@code deserializer}. */
    public static <T> KafkaSource<T> source(String bootstrapServers, String topic, KafkaDeserializer<? extends T> deserializer) {
        Objects.requireNonNull(deserializer, "deserializer");
        return records(bootstrapServers, topic, r -> deserializer.deserialize(r.value()));
    }

    /** Each record, deserialised whole (key, value, timestamp, headers) by {@code deserializer}. */
    public static <T> KafkaSource<T> records(String bootstrapServers, String topic, KafkaRecordDeserializer<? extends T> deserializer) {
        requireText(bootstrapServers, "bootstrapServers");
        requireText(topic, "topic");
        Objects.requireNonNull(deserializer, "deserializer");
        SourceSettings settings = new SourceSettings(bootstrapServers, topic, false, false, KafkaSource.DEFAULT_DISCOVERY,
                Duration.ZERO, Map.of());
        return new KafkaSource<>(settings, deserializer, BadRecordPolicy.fail());
    }

    /** Each record's value as UTF-8 text; a value that is not UTF-8 is a bad record. */
    public static KafkaSource<String> strings(String bootstrapServers, String topic) {
        return source(bootstrapServers, topic, KafkaDeserializer.strings());
    }

    /** Each record's value as bytes. */
    public static KafkaSource<byte[]> bytes(String bootstrapServers, String topic) {
        return source(bootstrapServers, topic, KafkaDeserializer.bytes());
    }

    static void requireText(String s, String what) {
        if (s == null || s.isBlank()) {
            throw new IllegalArgumentException(what + " is " + (s == null ? "null" : "blank"));
        }
    }
}
