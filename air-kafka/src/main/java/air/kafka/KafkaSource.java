package air.kafka;

import air.runtime.api.BadRecordPolicy;
import air.runtime.api.SourceFactory;
import air.runtime.api.SourceReader;
import air.runtime.source.split.SplitSource;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * A source reading one Kafka topic, a split per partition: made by {@link KafkaSources}, set up
 * by its methods (each returns a new source; this one is not changed), then given to
 * {@code Pipeline.readFrom}. Partition {@code p} is read by instance {@code p mod parallelism}.
 * Offsets live in the job's checkpoints only: a rollback or a restore rewinds every partition to
 * the offset after the last record the checkpoint covers, so that nothing is lost and, with an
 * exactly-once sink, nothing is doubled; the source never commits offsets to Kafka.
 *
 * <p>By default it starts at the earliest offset of every partition and runs until cancelled,
 * looking for new partitions every 5 s.
 */
public final class KafkaSource<T> implements SourceFactory<T> {

    static final Duration DEFAULT_DISCOVERY = Duration.ofSeconds(5);

    private final SourceSettings settings;
    private final KafkaRecordDeserializer<? extends T> deserializer;
    private final BadRecordPolicy badRecords;

    KafkaSource(SourceSettings settings, KafkaRecordDeserializer<? extends T> deserializer, BadRecordPolicy badRecords) {
        this.settings = settings;
        this.deserializer = deserializer;
        this.badRecords = badRecords;
    }

    /**
     * Reads every partition up to its end offset as it was when the partition was first opened
     * (the bound is kept in the checkpoints with the position), then ends: for tests, benchmarks
     * and backfills. No partition is looked for after the start.
     */
    public KafkaSource<T> bounded() {
        return with(settings.latest(), true, settings.discoveryInterval(), settings.pollTimeout(), settings.properties());
    }

    /**
     * Starts every partition listed at the start at its end: only records written from now on are
     * read (a partition found while running is still read from its beginning, so that nothing
     * written to it is missed). A position restored from a checkpoint always wins.
     */
    public KafkaSource<T> startFromLatest() {
        return with(true, settings.bounded(), settings.discoveryInterval(), settings.pollTimeout(), settings.properties());
    }

    /** Starts every partition at its earliest offset still kept (the default). */
    public KafkaSource<T> startFromEarliest() {
        return with(false, settings.bounded(), settings.discoveryInterval(), settings.pollTimeout(), settings.properties());
    }

    /** How often to look for partitions added to the topic (default 5 s); unbounded sources only. */
    public KafkaSource<T> discoveryInterval(Duration interval) {
        if (interval == null || interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException(describe() + ": discoveryInterval must be positive (for a source that ends, use bounded())"
                    + ", got " + interval);
        }
        return with(settings.latest(), settings.bounded(), interval, settings.pollTimeout(), settings.properties());
    }

    /**
     * How long one poll of a partition may wait for records (default 0: the engine calls again,
     * backing off by itself while nothing comes, so a quiet partition never holds up the others).
     */
    public KafkaSource<T> pollTimeout(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.compareTo(Duration.ofSeconds(1)) > 0) {
            throw new IllegalArgumentException(describe() + ": pollTimeout must be between 0 and 1 s, got " + timeout);
        }
        return with(settings.latest(), settings.bounded(), settings.discoveryInterval(), timeout, settings.properties());
    }

    /**
     * A Kafka consumer property (security, fetch sizes, {@code isolation.level}, ...), given to
     * every consumer this source makes; it overrides the source's own. The source never commits
     * offsets, whatever the properties say; the deserialisers are its own; a {@code client.id} is
     * the prefix of each consumer's id (each needs its own).
     */
    public KafkaSource<T> property(String key, Object value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        if (key.equals(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG) || key.equals(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG)) {
            throw new IllegalArgumentException(describe() + ": " + key + " is the source's own (it reads bytes and hands them to the "
                    + "deserialiser it was given)");
        }
        Map<String, Object> p = new LinkedHashMap<>(settings.properties());
        p.put(key, value);
        return with(settings.latest(), settings.bounded(), settings.discoveryInterval(), settings.pollTimeout(), Map.copyOf(p));
    }

    /** Every entry of {@code properties}, as by {@link #property}. */
    public KafkaSource<T> properties(Map<String, ?> properties) {
        KafkaSource<T> s = this;
        for (Map.Entry<String, ?> e : properties.entrySet()) {
            s = s.property(e.getKey(), e.getValue());
        }
        return s;
    }

    /** What happens to a record the deserialiser throws on (default {@link BadRecordPolicy#fail()}). */
    public KafkaSource<T> onBadRecord(BadRecordPolicy policy) {
        return new KafkaSource<>(settings, deserializer, Objects.requireNonNull(policy, "policy"));
    }

    /** The splits this source reads: the topic's partitions. */
    public KafkaSplits<T> splits() {
        return new KafkaSplits<>(settings, deserializer);
    }

    @Override
    public SourceReader<T> createReader(int instance, int parallelism) {
        // splits of their own per instance: a partition listed at this instance's start is told from one found later
        return new SplitSource<>(splits(), badRecords).createReader(instance, parallelism);
    }

    @Override
    public String describe() {
        return settings.describe();
    }

    private KafkaSource<T> with(boolean latest, boolean bounded, Duration discovery, Duration poll, Map<String, Object> properties) {
        return new KafkaSource<>(new SourceSettings(settings.bootstrap(), settings.topic(), bounded, latest, discovery, poll, properties),
                deserializer, badRecords);
    }
}
