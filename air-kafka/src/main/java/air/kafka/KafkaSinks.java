package air.kafka;

import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/** Sinks writing to Kafka topics. */
public final class KafkaSinks {

    private KafkaSinks() {
    }

    /**
     * Writes each record's {@code valueFn} to {@code topic}, without a key (the producer spreads
     * records over the partitions), at least once: see {@link KafkaSink}.
     */
    public static <T> KafkaSink<T> atLeastOnce(String bootstrapServers, String topic, Function<? super T, byte[]> valueFn) {
        return create(bootstrapServers, topic, valueFn, null);
    }

    /**
     * Writes each record's {@code valueFn} to {@code topic} under the key {@code keyFn} (records
     * with equal keys go to the same partition, in order), at least once: see {@link KafkaSink}.
     */
    public static <T> KafkaSink<T> atLeastOnce(String bootstrapServers, String topic, Function<? super T, byte[]> valueFn,
                                               Function<? super T, byte[]> keyFn) {
        return create(bootstrapServers, topic, valueFn, Objects.requireNonNull(keyFn, "keyFn"));
    }

    private static <T> KafkaSink<T> create(String bootstrapServers, String topic, Function<? super T, byte[]> valueFn,
                                           Function<? super T, byte[]> keyFn) {
        KafkaSources.requireText(bootstrapServers, "bootstrapServers");
        KafkaSources.requireText(topic, "topic");
        return new KafkaSink<>(bootstrapServers, topic, Objects.requireNonNull(valueFn, "valueFn"), keyFn, Map.of());
    }
}
