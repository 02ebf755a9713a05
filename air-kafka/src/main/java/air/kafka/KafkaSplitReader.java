package air.kafka;

import air.runtime.api.Emitter;
import air.runtime.source.split.SplitContext;
import air.runtime.source.split.SplitReader;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one partition with a consumer of its own, by assign and seek: no group, no commits. A
 * {@link PartitionFetcher} polls the consumer on a thread of its own and hands each poll's records
 * over; the reader deserialises and emits them, at most the batch asked for per call, waiting for
 * a poll at most the source's poll timeout (the engine calls again and backs off by itself), and
 * tracks the offset after the last record it handled. The consumer rides out a broker restart by
 * itself; when it has had no answer for {@link BrokerContactWatch#STALL_WARN_NANOS} the split says
 * so in one WARN line, and in one INFO line when answers come again.
 */
final class KafkaSplitReader<T> implements SplitReader<T> {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaSplitReader.class);
    /** How long the one-off look-ups (the end offset of a bounded source, a start position) may wait per call. */
    private static final Duration LOOKUP_TIMEOUT = Duration.ofMillis(500);

    private final SourceSettings settings;
    private final String split;
    private final TopicPartition partition;
    private final KafkaRecordDeserializer<? extends T> deserializer;
    private final SplitContext context;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Consumer<KafkaSplitReader<T>> onClose;
    private final BrokerContactWatch watch;
    /** Polls the consumer once the split's bounds are known; null until then. */
    private PartitionFetcher fetcher;
    /** The offset after the last record handled (emitted or refused); -1 until known. */
    private long next = -1;
    /** Bounded: the offset to read up to, exclusive; -1 until known. */
    private long end = -1;
    /** The offset of the record being emitted, or -1. */
    private long emitting = -1;
    private List<ConsumerRecord<byte[], byte[]>> pending = List.of();
    private int pendingIndex;

    KafkaSplitReader(SourceSettings settings, int partition, KafkaRecordDeserializer<? extends T> deserializer, byte[] position,
                     boolean fromLatest, SplitContext context, Consumer<KafkaSplitReader<T>> onClose) throws IOException {
        this.settings = settings;
        this.split = settings.topic() + "-" + partition;
        this.partition = new TopicPartition(settings.topic(), partition);
        this.deserializer = deserializer;
        this.context = context;
        this.onClose = onClose;
        this.watch = new BrokerContactWatch(context.sourceName(), settings.bootstrap(), split);
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
        if (fetcher == null && !startFetching()) {
            return 0;
        }
        if (pendingIndex >= pending.size()) {
            if (reachedEnd()) {
                return FINISHED;
            }
            PartitionFetcher.Fetched f = fetcher.next(settings.pollTimeout());
            if (f == null || f.records().isEmpty()) {
                afterEmptyPoll(f);
                return reachedEnd() ? FINISHED : 0;
            }
            pending = f.records();
            pendingIndex = 0;
        }
        int emitted = 0;
        while (emitted < max && pendingIndex < pending.size()) {
            ConsumerRecord<byte[], byte[]> r = pending.get(pendingIndex);
            if (settings.bounded() && r.offset() >= end) {
                // every record before the bound was handled (what no poll returns, transaction markers, needs none)
                pending = List.of();
                pendingIndex = 0;
                next = Math.max(next, end);
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

    /**
     * Bounded: the split's bounds first (the reader's own look-ups, false until both are known);
     * then the fetcher takes the consumer over.
     */
    private boolean startFetching() throws IOException {
        if (settings.bounded() && (end < 0 && !lookUpEnd() || next < 0 && !lookUpStart())) {
            return false;
        }
        fetcher = new PartitionFetcher(consumer, partition, next, settings.bounded() ? end : -1, watch);
        fetcher.start();
        return true;
    }

    /** No records came: a failure of the consumer fails the read; where the consumer stands moves the position past what no poll returns. */
    private void afterEmptyPoll(PartitionFetcher.Fetched f) throws IOException {
        if (f == null) {
            return;
        }
        if (f.failure() instanceof InterruptException || f.failure() instanceof WakeupException) {
            throw f.failure();
        }
        if (f.failure() instanceof KafkaException e) {
            throw failed(e);
        }
        if (f.failure() != null) {
            throw new IOException("the fetcher of " + split + " failed: " + f.failure(), f.failure());
        }
        if (settings.bounded() || next < 0) {
            next = Math.max(next, f.position());
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
            watch.contact();
            return true;
        } catch (TimeoutException e) {
            watch.noContact(next);
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
            watch.contact();
            return true;
        } catch (TimeoutException e) {
            watch.noContact(next);
            return false;
        } catch (InterruptException e) {
            throw e;
        } catch (KafkaException e) {
            throw failed(e);
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
        if (fetcher != null && !fetcher.close()) {
            LOG.warn("{}: the fetcher of {} did not stop within 5 s; closing its consumer anyway", context.sourceName(), split);
        }
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
