package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import air.runtime.Job;
import air.runtime.JobStatus;
import air.runtime.impl.exec.RunningJob;
import air.runtime.source.PushSource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Live input the application pushes, and a cancel that ends join() although a source or a function blocks. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LiveInputTest {

    @Test
    void a_pushed_record_reaches_the_sink_without_waiting_for_a_full_batch_and_close_ends_the_job() throws Exception {
        PushSource<String> input = Sources.push(100);
        List<String> seen = new CopyOnWriteArrayList<>();
        CountDownLatch first = new CountDownLatch(1);
        Pipeline p = Pipeline.create();
        p.readFrom(input).map(String::toUpperCase).writeTo(Sinks.callback(s -> {
            seen.add(s);
            first.countDown();
        }));
        Job job = p.submit(config(2));
        input.offer("a");
        // one record of a 1024-record batch: it is read at the next poll, not when 1023 more arrive
        assertThat(first.await(10, TimeUnit.SECONDS)).as("the first record reached the sink while the job runs").isTrue();
        assertThat(job.status()).isEqualTo(JobStatus.RUNNING);
        input.offer("b");
        input.offer("c", Duration.ofSeconds(1));
        input.close();
        job.join();
        assertThat(job.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(seen).containsExactlyInAnyOrder("A", "B", "C");
        assertThatThrownBy(() -> input.offer("d")).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void a_full_queue_holds_the_application_back_while_the_job_is_busy() throws Exception {
        PushSource<Integer> input = Sources.push(2);
        CountDownLatch inSink = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<Integer> seen = new CopyOnWriteArrayList<>();
        Pipeline p = Pipeline.create();
        p.readFrom(input).writeTo(Sinks.callback(i -> {
            if (i == 1) {
                inSink.countDown();
                awaitQuietly(release);
            }
            seen.add(i);
        }));
        Job job = p.submit(config(1));
        input.offer(1);
        assertThat(inSink.await(10, TimeUnit.SECONDS)).isTrue(); // the only source instance is now inside the sink
        input.offer(2);
        input.offer(3);
        assertThat(input.pending()).isEqualTo(2);
        assertThat(input.offer(4, Duration.ofMillis(50))).as("the queue is full: backpressure").isFalse();
        release.countDown();
        input.close();
        job.join();
        assertThat(seen).containsExactly(1, 2, 3);
    }

    @Test
    void cancel_ends_join_promptly_when_the_source_blocks_in_take() throws Exception {
        BlockingQueue<Long> never = new ArrayBlockingQueue<>(1);
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.fromSupplier(Long.MAX_VALUE, () -> {
            try {
                return never.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        })).writeTo(Sinks.collect());
        Job job = p.submit(config(2));
        job.cancel();
        assertTimeoutPreemptively(Duration.ofSeconds(2), job::join, "join() after cancel()");
        assertThat(job.status()).isEqualTo(JobStatus.CANCELLED);
        assertThat(((RunningJob) job).liveThreads()).isZero();
    }

    @Test
    void cancel_ends_join_promptly_when_a_user_function_blocks() throws Exception {
        PushSource<Integer> input = Sources.push(10);
        CountDownLatch inMap = new CountDownLatch(1);
        Pipeline p = Pipeline.create();
        p.readFrom(input).map(i -> {
            inMap.countDown();
            try {
                Thread.sleep(3_600_000); // a function stuck for an hour
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
            return i;
        }).writeTo(Sinks.collect());
        Job job = p.submit(config(1));
        input.offer(1);
        assertThat(inMap.await(10, TimeUnit.SECONDS)).isTrue();
        job.cancel();
        assertTimeoutPreemptively(Duration.ofSeconds(2), job::join, "join() after cancel()");
        assertThat(job.status()).isEqualTo(JobStatus.CANCELLED);
        assertThat(((RunningJob) job).liveThreads()).isZero();
    }

    @Test
    void the_summary_says_how_much_was_dropped_as_late() {
        // timestamps that run backwards: behind the watermark, all but the first of each batch are late
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.generate(1_000, i -> 1_000_000 - i)).withTimestamps(t -> t, 0)
                .window(Windows.tumbling(10)).aggregate(Aggregations.count()).writeTo(Sinks.collect());
        Job job = p.execute(config(1).batchSize(10).watermarkIntervalMs(0));
        assertThat(job.summary().recordsIn()).isEqualTo(1_000);
        assertThat(job.summary().lateRecords()).isGreaterThan(800);
        assertThat(job.summary().lateShare()).isGreaterThan(0.8);
        assertThat(job.summary().windowResults() + job.summary().lateRecords()).isGreaterThanOrEqualTo(100);
        assertThat(job.summary().toString()).contains("1000 records in").contains("late");
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
