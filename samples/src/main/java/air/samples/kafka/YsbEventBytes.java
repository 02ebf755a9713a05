package air.samples.kafka;

import air.kafka.KafkaSource;
import air.kafka.KafkaSources;
import air.samples.ysb.YsbArgs;
import air.workloads.ysb.YsbEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;

/**
 * A YSB event as the 44 bytes of a Kafka record's value: user, page and ad id, ad type, event
 * type, event time, IP address, big-endian, fixed width (the events are produced and read by
 * this project alone, so the cheapest exact form, not a schema'd one).
 */
public final class YsbEventBytes {

    /** The size of one event's value. */
    public static final int SIZE = 8 + 8 + 8 + 4 + 4 + 8 + 4;

    private YsbEventBytes() {
    }

    public static byte[] encode(YsbEvent e) {
        return ByteBuffer.allocate(SIZE).putLong(e.userId()).putLong(e.pageId()).putLong(e.adId()).putInt(e.adType())
                .putInt(e.eventType()).putLong(e.eventTime()).putInt(e.ipAddress()).array();
    }

    /** The event in {@code value}; anything but 44 bytes is an error (a bad record under the source's policy). */
    public static YsbEvent decode(byte[] value) {
        if (value == null || value.length != SIZE) {
            throw new IllegalArgumentException("a YSB event is " + SIZE + " bytes, this value has " + (value == null ? "none" : value.length));
        }
        ByteBuffer b = ByteBuffer.wrap(value);
        return new YsbEvent(b.getLong(), b.getLong(), b.getLong(), b.getInt(), b.getInt(), b.getLong(), b.getInt());
    }

    /** Lists the partitions of the topic of {@code input}; fails when the topic is not there or the brokers do not answer. */
    public static List<String> requireTopic(YsbArgs.KafkaInput input) {
        try {
            return source(input).splits().discover();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The topic of {@code input} read to its end as it was at the start (the whole run's events are
     * there first). Polls wait up to 10 ms for a fetch to land (with the source's 4 MiB socket
     * buffer: 1.07M -> 1.2-1.4M events/s at P1, docs/benchmarks.md).
     */
    public static KafkaSource<YsbEvent> source(YsbArgs.KafkaInput input) {
        return KafkaSources.source(input.bootstrap(), input.topic(), YsbEventBytes::decode).bounded()
                .property("max.poll.records", 16_384).property("max.partition.fetch.bytes", 8 << 20).pollTimeout(Duration.ofMillis(10));
    }
}
