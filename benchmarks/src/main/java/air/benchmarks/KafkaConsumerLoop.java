package air.benchmarks;

import air.samples.kafka.YsbEventBytes;
import air.samples.ysb.YsbReport;
import air.workloads.ysb.YsbEvent;
import air.workloads.ysb.YsbGenerator;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The ceiling of {@code ./air bench kafka}: kafka-clients alone reading a YSB topic in a loop, P
 * threads with a consumer each (partition {@code p} on thread {@code p mod P}, assigned, no group),
 * each decoding every event and counting the views — what the engine's source does before the
 * query, with no engine. {@code KafkaConsumerLoop BOOTSTRAP TOPIC N P [SEED RATE]} prints a RESULT
 * line; exit 1 when the records read are not N or the views not the generator's.
 */
public final class KafkaConsumerLoop {

    private KafkaConsumerLoop() {
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        long n = Long.parseLong(args[2]);
        int p = Integer.parseInt(args[3]);
        long seed = args.length > 4 ? Long.parseLong(args[4]) : 42;
        long rate = args.length > 5 ? Long.parseLong(args[5]) : 100_000;
        List<TopicPartition> partitions = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = consumer(bootstrap)) {
            for (PartitionInfo info : c.partitionsFor(topic, Duration.ofSeconds(30))) {
                partitions.add(new TopicPartition(topic, info.partition()));
            }
        }
        AtomicLong records = new AtomicLong();
        AtomicLong views = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        long t0 = System.nanoTime();
        long cpu0 = YsbReport.processCpuNanos();
        for (int i = 0; i < p; i++) {
            List<TopicPartition> mine = new ArrayList<>();
            for (TopicPartition tp : partitions) {
                if (tp.partition() % p == i) {
                    mine.add(tp);
                }
            }
            threads.add(Thread.ofPlatform().name("consumer-" + i).start(() -> read(bootstrap, mine, records, views)));
        }
        for (Thread t : threads) {
            t.join();
        }
        double s = (System.nanoTime() - t0) / 1e9;
        double cpu = (YsbReport.processCpuNanos() - cpu0) / 1e9;
        YsbGenerator generator = new YsbGenerator(seed, rate);
        long expected = 0;
        for (long i = 0; i < n; i++) {
            if (generator.isView(i)) {
                expected++;
            }
        }
        System.out.printf(Locale.ROOT, "RESULT engine=kafka-consumer p=%d n=%d partitions=%d views=%d run_s=%.3f throughput_eps=%.0f"
                + " cpu_s=%.3f%n", p, records.get(), partitions.size(), views.get(), s, records.get() / s, cpu);
        if (records.get() != n || views.get() != expected) {
            System.out.printf(Locale.ROOT, "kafka-consumer: MISMATCH: read %d records with %d views, the generator has %d and %d%n",
                    records.get(), views.get(), n, expected);
            System.exit(1);
        }
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrap) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        // the same fetch settings as the engine's source in the sample (YsbEventBytes.source)
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 16_384);
        props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 8 << 20);
        props.put(ConsumerConfig.RECEIVE_BUFFER_CONFIG, 4 << 20);
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    private static void read(String bootstrap, List<TopicPartition> mine, AtomicLong records, AtomicLong views) {
        if (mine.isEmpty()) {
            return;
        }
        try (KafkaConsumer<byte[], byte[]> c = consumer(bootstrap)) {
            c.assign(mine);
            c.seekToBeginning(mine);
            Map<TopicPartition, Long> end = c.endOffsets(mine);
            long read = 0;
            long seen = 0;
            Map<TopicPartition, Long> next = new HashMap<>();
            while (!done(end, next)) {
                ConsumerRecords<byte[], byte[]> got = c.poll(Duration.ofMillis(100));
                for (TopicPartition tp : got.partitions()) {
                    List<ConsumerRecord<byte[], byte[]>> batch = got.records(tp);
                    for (ConsumerRecord<byte[], byte[]> r : batch) {
                        YsbEvent e = YsbEventBytes.decode(r.value());
                        if (e.eventType() == YsbEvent.VIEW) {
                            seen++;
                        }
                    }
                    read += batch.size();
                    next.put(tp, batch.get(batch.size() - 1).offset() + 1);
                }
            }
            records.addAndGet(read);
            views.addAndGet(seen);
        }
    }

    private static boolean done(Map<TopicPartition, Long> end, Map<TopicPartition, Long> next) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (next.getOrDefault(e.getKey(), 0L) < e.getValue()) {
                return false;
            }
        }
        return true;
    }
}
