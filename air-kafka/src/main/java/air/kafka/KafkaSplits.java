package air.kafka;

import air.runtime.source.split.SplitContext;
import air.runtime.source.split.SplitReader;
import air.runtime.source.split.Splits;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A topic's partitions as splits: split {@code topic-N} is partition N, read by instance
 * {@code N mod parallelism}. A split's position is the offset of the next record to read (8 bytes,
 * big-endian), and for a {@linkplain KafkaSource#bounded bounded} source the end offset it reads
 * up to as well (8 more), so that a restored run stops where the first one would have.
 */
public final class KafkaSplits<T> implements Splits<T> {

    /** The first listing may wait for a broker that is still starting; later ones are retried at the next interval. */
    private static final Duration FIRST_LISTING_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration LISTING_TIMEOUT = Duration.ofSeconds(2);

    private final SourceSettings settings;
    private final KafkaRecordDeserializer<? extends T> deserializer;
    /** The partitions of the first listing: only these start at the end when the source starts from latest. */
    private final Set<Integer> listedAtStart = ConcurrentHashMap.newKeySet();
    private volatile boolean listed;
    /** The split readers open now. */
    private final Set<KafkaSplitReader<?>> openReaders = ConcurrentHashMap.newKeySet();
    /** The consumer that lists the partitions while split readers are open. */
    private KafkaConsumer<byte[], byte[]> lister;

    KafkaSplits(SourceSettings settings, KafkaRecordDeserializer<? extends T> deserializer) {
        this.settings = settings;
        this.deserializer = deserializer;
    }

    /**
     * Lists the partitions. While this instance reads splits, it keeps a consumer for the listing
     * (closed with the last of its split readers); while it reads none (more instances than
     * partitions, or a bounded source, which lists once), each listing makes one and closes it.
     * Runs on the instance's thread, between its reads.
     */
    @Override
    public synchronized List<String> discover() throws IOException {
        List<PartitionInfo> partitions;
        Duration timeout = listed ? LISTING_TIMEOUT : FIRST_LISTING_TIMEOUT;
        try {
            if (openReaders.isEmpty()) {
                try (KafkaConsumer<byte[], byte[]> consumer = listingConsumer()) {
                    partitions = consumer.partitionsFor(settings.topic(), timeout);
                }
            } else {
                if (lister == null) {
                    lister = listingConsumer();
                }
                // a consumer assigned nothing asks the brokers each time (one with the topic assigned would answer from its cache)
                partitions = lister.partitionsFor(settings.topic(), timeout);
            }
        } catch (InterruptException e) {
            throw e;
        } catch (KafkaException e) {
            throw new IOException("cannot list the partitions of topic '" + settings.topic() + "' at " + settings.bootstrap() + ": " + e, e);
        }
        if (partitions == null || partitions.isEmpty()) {
            throw new IOException("topic '" + settings.topic() + "' does not exist at " + settings.bootstrap());
        }
        List<String> ids = new ArrayList<>(partitions.size());
        for (PartitionInfo p : partitions) {
            ids.add(splitId(p.partition()));
            if (!listed) {
                listedAtStart.add(p.partition());
            }
        }
        ids.sort(null);
        listed = true;
        return ids;
    }

    @Override
    public int ownerOf(String split, int parallelism) {
        int partition = partitionOf(split);
        return partition < 0 ? Splits.super.ownerOf(split, parallelism) : partition % parallelism;
    }

    @Override
    public SplitReader<T> open(String split, byte[] position, SplitContext context) throws IOException {
        int partition = partitionOf(split);
        if (partition < 0) {
            throw new IOException("'" + split + "' is not a partition of topic '" + settings.topic() + "'");
        }
        boolean fromLatest = settings.latest() && listedAtStart.contains(partition);
        KafkaSplitReader<T> reader = new KafkaSplitReader<>(settings, partition, deserializer, position, fromLatest, context,
                this::closed);
        openReaders.add(reader);
        return reader;
    }

    private KafkaConsumer<byte[], byte[]> listingConsumer() {
        return new KafkaConsumer<>(settings.consumerProperties("list-" + settings.topic()), new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
    }

    /** A split reader closed: the listing consumer goes with the last one. */
    private synchronized void closed(KafkaSplitReader<?> reader) {
        openReaders.remove(reader);
        if (openReaders.isEmpty() && lister != null) {
            KafkaSplitReader.closeEvenIfInterrupted(lister);
            lister = null;
        }
    }

    @Override
    public Duration discoveryInterval() {
        return settings.bounded() ? Duration.ZERO : settings.discoveryInterval();
    }

    @Override
    public String describe() {
        return settings.describe();
    }

    String splitId(int partition) {
        return settings.topic() + "-" + partition;
    }

    /** The partition a split id names, or -1. */
    int partitionOf(String split) {
        String prefix = settings.topic() + "-";
        if (!split.startsWith(prefix) || split.length() == prefix.length()) {
            return -1;
        }
        try {
            int p = Integer.parseInt(split.substring(prefix.length()));
            return p >= 0 ? p : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
