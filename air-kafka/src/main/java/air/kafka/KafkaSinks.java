package air.kafka;

import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Sinks writing to Kafka topics: {@link #atLeastOnce} (a producer per instance, records written
 * again after a rollback) and {@link #exactlyOnce} (transactions committed with the checkpoints).
 */
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

    /**
     * Writes each record's {@code valueFn} to {@code topic}, without a key, exactly once: in Kafka
     * transactions committed with the job's checkpoints, see {@link KafkaExactlyOnceSink}. Only in
     * jobs with checkpoints or replicas; give each job its own
     * {@link KafkaExactlyOnceSink#transactionalIdPrefix transactional id prefix}.
     */
    public static <T> KafkaExactlyOnceSink<T> exactlyOnce(String bootstrapServers, String topic, Function<? super T, byte[]> valueFn) {
        return createExactlyOnce(bootstrapServers, topic, valueFn, null);
    }

    /**
     * Writes each record's {@code valueFn} to {@code topic} under the key {@code keyFn}, exactly
     * once: see {@link #exactlyOnce(String, String, Function)} and {@link KafkaExactlyOnceSink}.
     */
    public static <T> KafkaExactlyOnceSink<T> exactlyOnce(String bootstrapServers, String topic, Function<? super T, byte[]> valueFn,
                                                          Function<? super T, byte[]> keyFn) {
        return createExactlyOnce(bootstrapServers, topic, valueFn, Objects.requireNonNull(keyFn, "keyFn"));
    }

    private static <T> KafkaExactlyOnceSink<T> createExactlyOnce(String bootstrapServers, String topic, Function<? super T, byte[]> valueFn,
                                                                 Function<? super T, byte[]> keyFn) {
        KafkaSources.requireText(bootstrapServers, "bootstrapServers");
        KafkaSources.requireText(topic, "topic");
        return new KafkaExactlyOnceSink<>(bootstrapServers, topic, Objects.requireNonNull(valueFn, "valueFn"), keyFn, Map.of(), null,
                KafkaExactlyOnceSink.DEFAULT_POOL_SIZE, KafkaExactlyOnceSink.Probe.NONE);
    }

    private static <T> KafkaSink<T> create(String bootstrapServers, String topic, Function<? super T, byte[]> valueFn,
                                           Function<? super T, byte[]> keyFn) {
        KafkaSources.requireText(bootstrapServers, "bootstrapServers");
        KafkaSources.requireText(topic, "topic");
        return new KafkaSink<>(bootstrapServers, topic, Objects.requireNonNull(valueFn, "valueFn"), keyFn, Map.of());
    }
}
