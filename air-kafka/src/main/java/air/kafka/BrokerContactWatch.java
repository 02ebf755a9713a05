package air.kafka;

import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the Kafka brokers still answer one split's consumer: when it has had no answer for
 * {@link #STALL_WARN_NANOS} it says so in one WARN line, and in one INFO line when answers come
 * again. Used by one thread at a time (the split's reader while it looks up its bounds, then its
 * fetcher).
 */
final class BrokerContactWatch {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerContactWatch.class);
    static final long STALL_WARN_NANOS = 10_000_000_000L;
    private static final long HEALTH_CHECK_NANOS = 1_000_000_000L;

    private final String sourceName;
    private final String bootstrap;
    private final String split;
    private long lastContactNanos = System.nanoTime();
    private long nextHealthCheckNanos;
    private boolean warned;
    private Metric fetchTotal;
    private double lastFetchTotal = -1;

    BrokerContactWatch(String sourceName, String bootstrap, String split) {
        this.sourceName = sourceName;
        this.bootstrap = bootstrap;
        this.split = split;
    }

    /** A broker answered. */
    void contact() {
        lastContactNanos = System.nanoTime();
        if (warned) {
            warned = false;
            LOG.info("{}: {} is read again", sourceName, split);
        }
    }

    /** A broker did not answer in time; {@code next} is the offset the split goes on from, or -1. */
    void noContact(long next) {
        long silent = System.nanoTime() - lastContactNanos;
        if (!warned && silent >= STALL_WARN_NANOS) {
            warned = true;
            LOG.warn("{}: no answer from the Kafka brokers at {} for {} s while reading {} (next offset {}); the consumer keeps trying",
                    sourceName, bootstrap, silent / 1_000_000_000L, split, next < 0 ? "not known yet" : next);
        }
    }

    /**
     * A poll returned nothing: once a second, whether fetch responses still come (one at least every
     * {@code fetch.max.wait.ms} while a broker answers).
     */
    void afterEmptyPoll(KafkaConsumer<byte[], byte[]> consumer, long next) {
        long now = System.nanoTime();
        if (now < nextHealthCheckNanos) {
            return;
        }
        nextHealthCheckNanos = now + HEALTH_CHECK_NANOS;
        double fetches = fetchesAnswered(consumer);
        if (fetches != lastFetchTotal) {
            lastFetchTotal = fetches;
            contact();
        } else {
            noContact(next);
        }
    }

    /** Fetch responses received so far, or NaN. */
    private double fetchesAnswered(KafkaConsumer<byte[], byte[]> consumer) {
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
}
