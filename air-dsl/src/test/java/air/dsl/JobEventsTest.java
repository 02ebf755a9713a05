package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.JobConfig;
import air.runtime.JobEvent;
import air.runtime.JobFailedException;
import air.runtime.JobListener;
import air.runtime.api.WindowResult;
import air.runtime.sink.CollectSink;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The typed events a job publishes to its listeners, in order, and what a failing listener does not break. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class JobEventsTest {

    private static final long N = 3_000;

    /** Keeps every event, in the order published. */
    static final class Recorder implements JobListener {
        final List<JobEvent> events = new ArrayList<>();

        @Override
        public synchronized void onEvent(JobEvent event) {
            events.add(event);
        }

        synchronized List<JobEvent> events() {
            return List.copyOf(events);
        }

        synchronized long count(Class<? extends JobEvent> kind) {
            return events.stream().filter(kind::isInstance).count();
        }
    }

    /**
     * A windowed count with checkpoints every 20 ms; the sources hold a third of the way in until
     * {@code release} says go, so the job always writes checkpoints before its input ends.
     */
    private static void run(Path dir, JobConfig base, BooleanSupplier release, boolean failOnce,
                            CollectSink<WindowResult<Long, Long>> sink) {
        AtomicBoolean armed = new AtomicBoolean(failOnce);
        Pipeline p = Pipeline.create();
        p.readFrom(new TestPipelines.HeldSource(N, N / 6, release))
                .map(i -> {
                    if (armed.get() && release.getAsBoolean() && armed.getAndSet(false)) {
                        throw new IllegalStateException("injected failure");
                    }
                    return i;
                })
                .withTimestamps(i -> i, 0)
                .keyByLong(i -> i % 7)
                .window(Windows.tumbling(100))
                .aggregate(Aggregations.count())
                .writeTo(sink);
        p.execute(base.name("events").batchSize(16).checkpoints(Checkpoints.toDirectory(dir), 20));
    }

    @Test
    void a_job_with_checkpoints_delivers_started_then_its_checkpoints_in_order_then_finished(@TempDir Path dir) {
        Recorder recorder = new Recorder();
        CollectSink<WindowResult<Long, Long>> sink = Sinks.collect();
        run(dir, config(2).listener(recorder), () -> recorder.count(JobEvent.CheckpointWritten.class) >= 3, false, sink);

        List<JobEvent> events = recorder.events();
        assertThat(events.get(0)).isInstanceOf(JobEvent.Started.class);
        JobEvent.Started started = (JobEvent.Started) events.get(0);
        assertThat(started.job()).isEqualTo("events");
        assertThat(started.peer()).isZero();
        assertThat(started.workers()).isEqualTo(2);
        assertThat(started.tasklets()).isPositive();
        assertThat(events.get(events.size() - 1)).isInstanceOf(JobEvent.Finished.class);
        List<JobEvent> middle = events.subList(1, events.size() - 1);
        assertThat(middle).as("between Started and Finished: checkpoints only").hasSizeGreaterThanOrEqualTo(3)
                .allMatch(JobEvent.CheckpointWritten.class::isInstance);
        long previous = 0;
        for (JobEvent e : middle) {
            JobEvent.CheckpointWritten c = (JobEvent.CheckpointWritten) e;
            assertThat(c.checkpoint()).as("checkpoint ids ascend").isGreaterThan(previous);
            assertThat(c.parts()).isPositive();
            assertThat(c.bytes()).isPositive();
            assertThat(c.job()).isEqualTo("events");
            previous = c.checkpoint();
        }
        assertThat(events).allMatch(e -> e.atMs() > 0);
        assertThat(sink.items()).isNotEmpty();
    }

    @Test
    void a_listener_that_throws_breaks_neither_the_job_nor_the_listeners_after_it(@TempDir Path dir) {
        Recorder recorder = new Recorder();
        JobListener broken = e -> {
            throw new IllegalStateException("listener bug (injected)");
        };
        CollectSink<WindowResult<Long, Long>> sink = Sinks.collect();
        CollectSink<WindowResult<Long, Long>> reference = Sinks.collect();
        run(dir.resolve("a"), config(2).listener(broken).listener(recorder),
                () -> recorder.count(JobEvent.CheckpointWritten.class) >= 1, false, sink);
        run(dir.resolve("b"), config(2), () -> true, false, reference);

        assertThat(recorder.events().get(0)).isInstanceOf(JobEvent.Started.class);
        assertThat(recorder.events().get(recorder.events().size() - 1)).isInstanceOf(JobEvent.Finished.class);
        assertThat(sink.items()).containsExactlyInAnyOrderElementsOf(reference.items());
    }

    @Test
    void a_failed_job_ends_with_failed_and_its_rerun_recovers_and_runs_again_at_the_checkpoint(@TempDir Path dir) {
        Recorder first = new Recorder();
        CollectSink<WindowResult<Long, Long>> sink = Sinks.collect();
        assertThatThrownBy(() -> run(dir, config(2).listener(first), () -> first.count(JobEvent.CheckpointWritten.class) >= 2, true, sink))
                .isInstanceOf(JobFailedException.class).hasMessageContaining("injected failure");
        List<JobEvent> failed = first.events();
        assertThat(failed.get(failed.size() - 1)).isInstanceOfSatisfying(JobEvent.Failed.class,
                f -> assertThat(f.reason()).contains("injected failure"));
        assertThat(failed).filteredOn(JobEvent.Finished.class::isInstance).isEmpty();

        Recorder second = new Recorder();
        run(dir, config(2).listener(second), () -> true, false, sink);
        List<JobEvent> events = second.events();
        JobEvent.Recovering recovering = (JobEvent.Recovering) events.get(0);
        assertThat(recovering.checkpoint()).isGreaterThanOrEqualTo(2);
        assertThat(events.get(1)).isInstanceOf(JobEvent.Started.class);
        assertThat(events).filteredOn(JobEvent.RunningAgain.class::isInstance).singleElement()
                .isInstanceOfSatisfying(JobEvent.RunningAgain.class, r -> {
                    assertThat(r.checkpoint()).isEqualTo(recovering.checkpoint());
                    assertThat(r.share()).isZero();
                });
        assertThat(events.get(events.size() - 1)).isInstanceOf(JobEvent.Finished.class);
    }
}
