package air.benchmarks;

import air.runtime.impl.exec.JobContext;
import air.runtime.impl.shuffle.Inbox;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Hand-off between two virtual-thread tasklets through the runtime's {@link Inbox}: a producer
 * tasklet offers {@code ROUND} batches of {@code batchSize} records (columnar {@code long[]}), a
 * consumer tasklet takes and reads them and, at the end-of-round marker, releases the benchmark
 * thread.
 * Reported as batches/s and records/s (JMH secondary results).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g"})
public class HandOffBenchmark {

    static final int ROUND = 1000;
    private static final Object END_OF_ROUND = new Object();

    @Param({"1", "64", "1024"})
    public int batchSize;

    @Param({"64"})
    public int queueCapacity;

    private JobContext context;
    private Inbox data;
    private volatile CountDownLatch roundDone;
    private Thread consumer;
    private long[][] batches;
    private volatile long checksum;

    /** The counters JMH reports per second. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Counters {
        public long batches;
        public long records;

        @Setup(Level.Iteration)
        public void reset() {
            batches = 0;
            records = 0;
        }
    }

    @Setup(Level.Trial)
    public void start() {
        context = new JobContext("handoff");
        data = new Inbox(queueCapacity, context::checkCancelled);
        batches = new long[queueCapacity + 2][batchSize];
        consumer = Thread.ofVirtual().name("consumer").unstarted(this::consume);
        data.bindConsumer(consumer);
        consumer.start();
    }

    private void consume() {
        long sum = 0;
        try {
            while (true) {
                Object item = data.take();
                if (item == END_OF_ROUND) {
                    roundDone.countDown();
                } else {
                    long[] batch = (long[]) item;
                    for (long v : batch) {
                        sum += v;
                    }
                }
            }
        } catch (RuntimeException cancelled) {
            checksum = sum;
        }
    }

    @Benchmark
    public void handOffRound(Counters counters) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        roundDone = done;
        Thread producer = Thread.ofVirtual().start(() -> {
            for (int i = 0; i < ROUND; i++) {
                data.offer(batches[i % batches.length]);
            }
            data.offer(END_OF_ROUND);
        });
        done.await();
        producer.join();
        counters.batches += ROUND;
        counters.records += (long) ROUND * batchSize;
    }

    @TearDown(Level.Trial)
    public void stop() throws InterruptedException {
        context.cancel();
        LockSupport.unpark(consumer); // not a job tasklet: cancel() does not know it
        consumer.join();
    }
}
