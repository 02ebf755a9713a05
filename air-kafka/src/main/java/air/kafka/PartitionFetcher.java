package air.kafka;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;

/**
 * Polls one split's consumer on a platform thread of its own, as the bare consumer loop does, and
 * hands what each poll brought to the split's reader through a queue at most {@link #AHEAD} polls
 * deep: fetching, decompressing and parsing the next records overlaps with the engine's work on
 * the ones before, and the socket is drained while the engine works (a reader that polled between
 * its batches left it idle and waited on it). The consumer is the fetcher's alone from
 * {@link #start} until {@link #close} returns. Only records the reader takes count as read: the
 * split's position stays the reader's, so what was fetched ahead and not emitted is fetched again
 * after a restore.
 */
final class PartitionFetcher {

    /** Polls fetched ahead of the reader at most. */
    static final int AHEAD = 2;
    /** The longest one poll of the fetcher waits (data ends it at once; {@link #close} wakes it). */
    private static final Duration POLL_WAIT = Duration.ofMillis(100);
    private static final long HAND_WAIT_MS = 50;
    private static final long CLOSE_WAIT_MS = 5_000;

    /**
     * What one poll brought: records of the partition, or none and the offset the consumer stands
     * at (past transaction markers, which no poll returns), or why the consumer failed.
     */
    record Fetched(List<ConsumerRecord<byte[], byte[]>> records, long position, RuntimeException failure) {
    }

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final TopicPartition partition;
    private final BrokerContactWatch watch;
    /** Bounded: the offset to fetch up to, exclusive; -1 when unbounded. */
    private final long end;
    private final ArrayBlockingQueue<Fetched> ready = new ArrayBlockingQueue<>(AHEAD);
    private final Thread thread;
    private volatile boolean closing;
    /** The offset after the last record fetched, or where the consumer was seen to stand; -1 until known. Fetcher thread only. */
    private long fetched;

    /**
     * A fetcher of {@code partition}, which {@code consumer} is assigned and positioned at
     * {@code from} (-1: not known yet); {@code end} is the bound of a bounded source, -1 when none.
     */
    PartitionFetcher(KafkaConsumer<byte[], byte[]> consumer, TopicPartition partition, long from, long end, BrokerContactWatch watch) {
        this.consumer = consumer;
        this.partition = partition;
        this.fetched = from;
        this.end = end;
        this.watch = watch;
        this.thread = Thread.ofPlatform().daemon().name("air-kafka-fetch-" + partition).unstarted(this::fetchAll);
    }

    void start() {
        thread.start();
    }

    /** What the next poll brought, waiting up to {@code wait} for it; null when nothing came. */
    Fetched next(Duration wait) {
        try {
            return wait.isZero() ? ready.poll() : ready.poll(wait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptException(e);
        }
    }

    private void fetchAll() {
        try {
            while (!closing && (end < 0 || fetched < end)) {
                List<ConsumerRecord<byte[], byte[]>> records = consumer.poll(POLL_WAIT).records(partition);
                if (records.isEmpty()) {
                    afterEmptyPoll();
                } else {
                    watch.contact();
                    fetched = records.getLast().offset() + 1;
                    hand(new Fetched(records, fetched, null));
                }
            }
        } catch (WakeupException | InterruptException e) {
            if (!closing) {
                hand(new Fetched(List.of(), -1, e));
            }
        } catch (RuntimeException e) {
            hand(new Fetched(List.of(), -1, e));
        }
    }

    /**
     * Nothing came: where the consumer stands, when that is known without waiting and matters (a
     * bounded source, or no position yet), and whether the brokers still answer at all.
     */
    private void afterEmptyPoll() {
        if (end >= 0 || fetched < 0) {
            try {
                long at = consumer.position(partition, Duration.ZERO);
                if (at > fetched) {
                    fetched = at;
                    hand(new Fetched(List.of(), at, null));
                }
            } catch (TimeoutException e) {
                // not known yet (being looked up, or checked after a leader change): the next poll goes on with it
            }
        }
        watch.afterEmptyPoll(consumer, fetched);
    }

    /** Queues {@code f} for the reader, waiting while it is {@link #AHEAD} polls behind; gives up when closing. */
    private void hand(Fetched f) {
        try {
            while (!closing) {
                if (ready.offer(f, HAND_WAIT_MS, TimeUnit.MILLISECONDS)) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Stops fetching and waits for the fetcher's thread to end, so that the consumer can be closed;
     * keeps the caller's interrupt (a cancelled job closes its readers on an interrupted thread).
     * Returns false when the thread did not end in time.
     */
    boolean close() {
        closing = true;
        consumer.wakeup();
        boolean interrupted = Thread.interrupted();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WAIT_MS);
        try {
            while (thread.isAlive()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    thread.join(Duration.ofNanos(left));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            return true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
