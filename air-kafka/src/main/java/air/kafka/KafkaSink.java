package air.kafka;

import air.runtime.api.CheckpointedSinkWriter;
import air.runtime.api.SinkFactory;
import air.runtime.api.SinkWriter;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes every record to a Kafka topic, at least once: made by {@link KafkaSinks#atLeastOnce}.
 * Each sink instance has a producer of its own ({@code acks=all}, idempotence on, so that the
 * producer's own retries add no duplicates). At every checkpoint the writer flushes its producer
 * and waits until the brokers acknowledged every record sent before the barrier, so a checkpoint
 * never counts a record that could still be lost.
 *
 * <p><b>At least once, not exactly once:</b> after a rollback the job replays the records written
 * since the checkpoint, and this sink writes them again. The topic then holds those records twice;
 * that is by design (the writer's state is empty and {@code restore} does nothing). A consumer of
 * the topic that must see each record once removes the duplicates itself, by a key it carries, or
 * the job writes with {@link KafkaSinks#exactlyOnce} instead.
 * The writer is a {@link CheckpointedSinkWriter} so that jobs with checkpoints accept it.
 */
public final class KafkaSink<T> implements SinkFactory<T> {

    private final String bootstrap;
    private final String topic;
    private final Function<? super T, byte[]> valueFn;
    private final Function<? super T, byte[]> keyFn;
    private final Map<String, Object> properties;

    KafkaSink(String bootstrap, String topic, Function<? super T, byte[]> valueFn, Function<? super T, byte[]> keyFn,
              Map<String, Object> properties) {
        this.bootstrap = bootstrap;
        this.topic = topic;
        this.valueFn = valueFn;
        this.keyFn = keyFn;
        this.properties = properties;
    }

    /**
     * A Kafka producer property ({@code linger.ms}, {@code compression.type}, security, ...), given
     * to every producer this sink makes; it overrides the sink's own, except {@code acks=all} and
     * idempotence, which the sink's guarantee needs, and the serialisers, which are its own.
     */
    public KafkaSink<T> property(String key, Object value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        if (List.of(ProducerConfig.ACKS_CONFIG, ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG).contains(key)) {
            throw new IllegalArgumentException(describe() + ": " + key + " is the sink's own (acks=all, idempotence on, bytes)");
        }
        Map<String, Object> p = new LinkedHashMap<>(properties);
        p.put(key, value);
        return new KafkaSink<>(bootstrap, topic, valueFn, keyFn, Map.copyOf(p));
    }

    @Override
    public SinkWriter<T> open(int instance, int parallelism) {
        Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "air-sink-" + topic + "-" + instance);
        p.putAll(properties);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        return new Writer<>(this, instance, new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer()));
    }

    @Override
    public String describe() {
        return "kafka(" + topic + "@" + bootstrap + ", at-least-once)";
    }

    /** One instance's producer. */
    private static final class Writer<T> implements CheckpointedSinkWriter<T> {

        private static final byte[] NO_STATE = new byte[0];

        private final KafkaSink<T> sink;
        private final int instance;
        private final KafkaProducer<byte[], byte[]> producer;
        /** The first send the brokers refused (after the producer's own retries): the writer fails with it. */
        private final AtomicReference<Exception> failed = new AtomicReference<>();

        Writer(KafkaSink<T> sink, int instance, KafkaProducer<byte[], byte[]> producer) {
            this.sink = sink;
            this.instance = instance;
            this.producer = producer;
        }

        @Override
        public void write(T item) {
            throwIfFailed();
            byte[] key = sink.keyFn == null ? null : sink.keyFn.apply(item);
            producer.send(new ProducerRecord<>(sink.topic, key, sink.valueFn.apply(item)), (metadata, e) -> {
                if (e != null) {
                    failed.compareAndSet(null, e);
                }
            });
        }

        /** Every record written so far is acknowledged by the brokers before the checkpoint counts. */
        @Override
        public byte[] snapshot(long checkpointId) {
            producer.flush();
            throwIfFailed();
            return NO_STATE;
        }

        /** Nothing to restore: what was written after the checkpoint stays in the topic, and is written again (at least once). */
        @Override
        public void restore(byte[] state) {
        }

        @Override
        public void restoreRescaled(long checkpointId, List<List<byte[]>> earlier) {
        }

        @Override
        public void close() {
            try {
                producer.flush();
                throwIfFailed();
            } finally {
                producer.close();
            }
        }

        @Override
        public void abort() {
            producer.close(Duration.ZERO);
        }

        private void throwIfFailed() {
            Exception e = failed.get();
            if (e != null) {
                throw new IllegalStateException(sink.describe() + " instance " + instance + ": the brokers refused a record: " + e, e);
            }
        }
    }
}
