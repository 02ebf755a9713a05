package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;

import air.runtime.Job;
import air.runtime.api.Emitter;
import air.runtime.api.SourceFactory;
import air.runtime.api.SourceReader;
import air.runtime.plan.Progress;
import air.runtime.sink.CollectSink;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** "Why is my window not firing?": the job names the upstream instance that holds a window back. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProgressReportTest {

    /** Instance 0 emits 0..9 and ends; instance 1 emits nothing until released. */
    private static final class OneStuckSource implements SourceFactory<Long> {
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public SourceReader<Long> createReader(int instance, int parallelism) {
            return new SourceReader<>() {
                long next;

                @Override
                public int read(int max, Emitter<? super Long> out) {
                    if (instance == 1) {
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return EXHAUSTED;
                    }
                    if (next >= 10) {
                        return EXHAUSTED;
                    }
                    out.emit(next++);
                    return 1;
                }

                @Override
                public long position() {
                    return next;
                }

                @Override
                public void seek(long position) {
                    next = position;
                }
            };
        }

        @Override
        public String describe() {
            return "one-stuck";
        }
    }

    @ParameterizedTest
    @EnumSource(Progress.class)
    void the_report_names_the_instance_that_holds_the_window(Progress progress) {
        OneStuckSource source = new OneStuckSource();
        Pipeline p = Pipeline.create();
        CollectSink<air.runtime.api.WindowResult<Long, Long>> sink = Sinks.collect();
        p.readFrom(source).withTimestamps(i -> i, 0).keyByLong(i -> 0L).window(Windows.tumbling(100))
                .aggregate(Aggregations.count()).writeTo(sink);
        Job job = p.submit(config(2).progress(progress));
        String report = job.progressReport();
        while (!report.contains("held back by upstream instance(s) [1]")) {
            LockSupport.parkNanos(1_000_000);
            report = job.progressReport();
        }
        assertThat(report).contains("oldest open epoch 0");
        source.release.countDown();
        job.join();
        assertThat(sink.items()).singleElement().satisfies(r -> assertThat(r.value()).isEqualTo(10L));
        assertThat(job.progressReport()).doesNotContain("held back");
    }
}
