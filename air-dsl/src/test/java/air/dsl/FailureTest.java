package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.Job;
import air.runtime.JobFailedException;
import air.runtime.JobStatus;
import air.runtime.api.WindowResult;
import air.runtime.impl.exec.RunningJob;
import air.runtime.sink.CollectSink;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A failing user function fails the job with the operator and position, and stops every thread. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FailureTest {

    @Test
    void a_throwing_map_names_the_operator_the_record_and_its_position() {
        Pipeline p = Pipeline.create();
        CollectSink<Long> sink = Sinks.collect();
        p.readFrom(Sources.generate(100, i -> i))
                .map(i -> {
                    if (i == 42) {
                        throw new IllegalArgumentException("bad record");
                    }
                    return i;
                })
                .writeTo(sink);
        Job job = p.submit(config(2));
        assertThatThrownBy(job::join)
                .isInstanceOf(JobFailedException.class)
                .hasMessageContaining("operator map@FailureTest.java:")
                .hasMessageContaining("threw on 42")
                .hasMessageContaining("source instance 0, record at position 42")
                .hasMessageContaining("IllegalArgumentException: bad record")
                .hasRootCauseMessage("bad record");
        assertEnded(job, JobStatus.FAILED);
        assertThatThrownBy(sink::items).hasMessageContaining("the job failed or was cancelled");
    }

    @Test
    void a_throwing_key_function_in_the_partial_aggregate_fails_the_job() {
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.generate(50, i -> i))
                .withTimestamps(i -> i, 0)
                .keyBy(i -> i == 7 ? null : i % 3)
                .window(Windows.tumbling(10))
                .aggregate(Aggregations.count())
                .writeTo(Sinks.collect());
        Job job = p.submit(config(1));
        assertThatThrownBy(job::join).hasMessageContaining("operator count@FailureTest.java:")
                .hasMessageContaining("key function returned null for 7");
        assertEnded(job, JobStatus.FAILED);
    }

    @Test
    void a_failing_sink_behind_a_shuffle_stops_upstream_workers_blocked_on_backpressure() {
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.generate(2_000_000, i -> i))
                .withTimestamps(i -> i, 0)
                .keyByLong(i -> i % 50)
                .window(Windows.tumbling(10))
                .aggregate(Aggregations.count())
                .writeTo(Sinks.<WindowResult<Long, Long>>callback(r -> {
                    throw new IllegalStateException("sink is down");
                }));
        Job job = p.submit(config(2).batchSize(64).queueCapacity(2));
        assertThatThrownBy(job::join).hasMessageContaining("operator sink@FailureTest.java:")
                .hasMessageContaining("sink is down")
                .hasMessageContaining("shuffle item #");
        assertEnded(job, JobStatus.FAILED);
    }

    @Test
    void cancel_stops_a_running_job() {
        Pipeline p = Pipeline.create();
        p.readFrom(Sources.generate(Long.MAX_VALUE, i -> i)).writeTo(Sinks.collect());
        Job job = p.submit(config(2));
        job.cancel();
        job.join();
        assertEnded(job, JobStatus.CANCELLED);
    }

    private static void assertEnded(Job job, JobStatus expected) {
        assertThat(job.status()).isEqualTo(expected);
        assertThat(((RunningJob) job).liveThreads()).isZero();
    }
}
