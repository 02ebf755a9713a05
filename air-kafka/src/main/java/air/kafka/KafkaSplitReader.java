package air.kafka;

import air.runtime.api.Emitter;
import air.runtime.source.split.SplitContext;
import air.runtime.source.split.SplitReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one partition with a consumer of its own, by assign and seek: no group, no commits. Polls
 * without waiting (the engine calls again and backs off by itself), keeps what a poll returned
 * beyond the batch asked for, and tracks the offset after the last record it handled. The consumer
 * rides out a broker restart by itself; when it has had no answer for {@link #STALL_WARN_NANOS}
 * the reader says so in one WARN line, and in one INFO line when answers come again.
 */
final class KafkaSplitReader<T> implements SplitReader<T> {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaSplitReader.class);
    static final long STALL_WARN_NANOS = 10_000_000_000L;
    private static final long HEALTH_CHECK_NANOS = 1_000_000_000L;
    /** How long the one-off look-ups (the end offset of a bounded source, a start position) may wait per call. */
    private static final Duration LOOKUP_TIMEOUT = Duration.ofMillis(500);

    private final SourceSettings settings;
    private final String split;
    private final TopicPartition partition;
    private final KafkaRecordDeserializer<? extends T> deserializer;
    private final SplitContext context;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Consumer<KafkaSplitReader<T>> onClose;
    /** The offset after the last record handled (emitted or refused); -1 until known. */
    private long next = -1;
    /** Bounded: the offset to read up to, exclusive; -1 until known. */
    private long end = -1;
    /** The offset of the record being emitted, or -1. */
    private long emitting = -1;
    private List<ConsumerRecord<byte[], byte[]>> pending = List.of();
    private int pendingIndex;
    private long lastContactNanos = System.nanoTime();
    private long nextHealthCheckNanos;
    private boolean warned;
    private Metric fetchTotal;
    private double lastFetchTotal = -1;

    KafkaSplitReader(SourceSettings settings, int partition, KafkaRecordDeserializer<? extends T> deserializer, byte[] position,
                     boolean fromLatest, SplitContext context, Consumer<KafkaSplitReader<T>> onClose) throws IOException {
        this.settings = settings;
        this.split = settings.topic() + "-" + partition;
        this.partition = new TopicPartition(settings.topic(), partition);
        this.deserializer = deserializer;
        this.context = context;
        this.onClose = onClose;
        if (position != null) {
            if (position.length != 8 && position.length != 16) {
                throw new IOException(split + ": a saved position of " + position.length + " bytes; a Kafka position has 8 or 16");
            }
            ByteBuffer b = ByteBuffer.wrap(position);
            next = b.getLong();
            end = settings.bounded() && position.length == 16 ? b.getLong() : -1;
        }
        try {
            consumer = new KafkaConsumer<>(settings.consumerProperties(split), new ByteArrayDeserializer(), new ByteArrayDeserializer());
        } catch (KafkaException e) {
            throw new IOException(split + ": cannot create its consumer: " + e, e);
        }
        List<TopicPartition> only = List.of(this.partition);
        try {
            consumer.assign(only);
            if (next >= 0) {
                consumer.seek(this.partition, next);
            } else if (fromLatest) {
                consumer.seekToEnd(only);
            } else {
                consumer.seekToBeginning(only);
            }
        } catch (RuntimeException e) {
            consumer.close(CloseOptions.timeout(Duration.ZERO));
            throw e;
        }
    }

    @Override
    public int read(int max, Emitter<? super T> out) throws IOException {
        if (settings.bounded() && (end < 0 && !lookUpEnd() || next < 0 && !lookUpStart())) {
            return 0;
        }
        if (pendingIndex >= pending.size()) {
            if (reachedEnd()) {
                return FINISHED;
            }
            pending = poll();
            pendingIndex = 0;
            if (pending.isEmpty()) {
                afterEmptyPoll();
                return reachedEnd() ? FINISHED : 0;
            }
            contact();
        }
        int emitted = 0;
        while (emitted < max && pendingIndex < pending.size()) {
            ConsumerRecord<byte[], byte[]> r = pending.get(pendingIndex);
            if (settings.bounded() && r.offset() >= end) {
                pending = List.of();
                pendingIndex = 0;
                break;
            }
            pendingIndex++;
            T item;
            emitting = r.offset();
            try {
                item = deserializer.deserialize(r);
            } catch (Exception e) {
                context.badRecord(origin(), r.value() == null ? new byte[0] : r.value(), e);
                next = r.offset() + 1;
                emitting = -1;
                continue;
            }
            out.emit(item);
            next = r.offset() + 1;
            emitting = -1;
            emitted++;
        }
        return emitted == 0 && reachedEnd() ? FINISHED : emitted;
    }

    /** One poll; what the consumer does not ride out itself (no retry helps) fails the read, naming the split. */
    private List<ConsumerRecord<byte[], byte[]>> poll() throws IOException {
        try {
            return consumer.poll(settings.pollTimeout()).records(partition);
        } catch (InterruptException | WakeupException e) {
            throw e;
        } catch (KafkaException e) {
            throw failed(e);
        }
    }

    private IOException failed(KafkaException e) {
        return new IOException("the consumer of " + split + " failed: " + e, e);
    }

    private boolean reachedEnd() {
        return settings.bounded() && next >= 0 && next >= end && pendingIndex >= pending.size();
    }

    /** Bounded: the partition's end offset now, once; false when the brokers did not answer in time. */
    private boolean lookUpEnd() throws IOException {
        try {
            Long e = consumer.endOffsets(List.of(partition), LOOKUP_TIMEOUT).get(partition);
            if (e == null) {
                return false;
            }
            end = e;
            contact();
            return true;
        } catch (TimeoutException e) {
            noContact();
            return false;
        } catch (InterruptException e) {
            throw e;
        } catch (KafkaException e) {
            throw failed(e);
        }
    }

    /** Bounded: where reading starts (the earliest or latest offset asked for), so that an empty partition is seen to be done. */
    private boolean lookUpStart() throws IOException {
        try {
            next = consumer.position(partition, LOOKUP_TIMEOUT);
            contact();
            return true;
        } catch (TimeoutException e) {
            noContact();
            return false;
        } catch (InterruptException e) {
            throw e;
        } catch (KafkaException e) {
            throw failed(e);
        }
    }

    /**
     * Nothing came: where the consumer stands (past transaction markers, which no poll returns)
     * when that is known without waiting, and whether the brokers still answer at all.
     */
    private void afterEmptyPoll() throws IOException {
        if (settings.bounded() || next < 0) {
            try {
                next = Math.max(next, consumer.position(partition, Duration.ZERO));
            } catch (TimeoutException e) {
                // not known yet (being looked up, or checked after a leader change): the next poll goes on with it
            } catch (InterruptException e) {
                throw e;
            } catch (KafkaException e) {
                throw failed(e);
            }
        }
        long now = System.nanoTime();
        if (now < nextHealthCheckNanos) {
            return;
        }
        nextHealthCheckNanos = now + HEALTH_CHECK_NANOS;
        double fetches = fetchesAnswered();
        if (fetches != lastFetchTotal) {
            lastFetchTotal = fetches;
            contact();
        } else {
            noContact();
        }
    }

    /** Fetch responses received so far (one at least every {@code fetch.max.wait.ms} while a broker answers), or NaN. */
    private double fetchesAnswered() {
        if (fetchTotal == null) {
            for (Map.Entry<MetricName, ? extends Metric> e : consumer.metrics().entrySet()) {
                MetricName n = e.getKey();
                if (n.name().equals("fetch-total") && n.group().equals("consumer-fetch-manager-metrics") && !n.tags().containsKey("topic")) {
                    fetchTotal = e.getValue();
                }
            }
            if (fetchTotal == null) {
                return Double.NaN;
            }
        }
        return fetchTotal.metricValue() instanceof Number v ? v.doubleValue() : Double.NaN;
    }

    private void contact() {
        lastContactNanos = System.nanoTime();
        if (warned) {
            warned = false;
            LOG.info("{}: {} is read again", context.sourceName(), split);
        }
    }

    private void noContact() {
        long silent = System.nanoTime() - lastContactNanos;
        if (!warned && silent >= STALL_WARN_NANOS) {
            warned = true;
            LOG.warn("{}: no answer from the Kafka brokers at {} for {} s while reading {} (next offset {}); the consumer keeps trying",
                    context.sourceName(), settings.bootstrap(), silent / 1_000_000_000L, split, next < 0 ? "not known yet" : next);
        }
    }

    @Override
    public byte[] position() {
        if (settings.bounded() && end >= 0) {
            return ByteBuffer.allocate(16).putLong(next).putLong(end).array();
        }
        return next < 0 ? null : ByteBuffer.allocate(8).putLong(next).array();
    }

    @Override
    public String origin() {
        long at = emitting >= 0 ? emitting : next;
        return split + "@" + (at < 0 ? "start" : Long.toString(at));
    }

    @Override
    public void close() {
        onClose.accept(this);
        closeEvenIfInterrupted(consumer);
    }

    /**
     * Closes a consumer that has no group and nothing to commit, even on an interrupted thread (a
     * cancelled job closes its readers on one), keeping the interrupt.
     */
    static void closeEvenIfInterrupted(KafkaConsumer<byte[], byte[]> consumer) {
        boolean interrupted = Thread.interrupted();
        try {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
