package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;

import air.channels.InJvmTransports;
import air.channels.Transport;
import air.runtime.Cluster;
import air.runtime.Job;
import air.runtime.api.Emitter;
import air.runtime.api.SourceFactory;
import air.runtime.api.SourceReader;
import air.runtime.api.WindowResult;
import air.runtime.plan.Progress;
import air.runtime.sink.CollectSink;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** "Why is my window not firing?": the job names the upstream instance that holds a window back. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ProgressReportTest {

    /** Instance 0 emits 0..9 and ends; instance {@code stuck} emits nothing until released; others end at once. */
    private static final class OneStuckSource implements SourceFactory<Long> {
        final CountDownLatch release = new CountDownLatch(1);
        final int stuck;

        OneStuckSource(int stuck) {
            this.stuck = stuck;
        }

        @Override
        public SourceReader<Long> createReader(int instance, int parallelism) {
            return new SourceReader<>() {
                long next;

                @Override
                public int read(int max, Emitter<? super Long> out) {
                    if (instance == stuck) {
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return EXHAUSTED;
                    }
                    if (instance != 0 || next >= 10) {
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
        OneStuckSource source = new OneStuckSource(1);
        Pipeline p = Pipeline.create();
        CollectSink<WindowResult<Long, Long>> sink = Sinks.collect();
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

    @ParameterizedTest
    @EnumSource(Progress.class)
    void across_peers_the_report_names_the_peer_of_the_holding_instance(Progress progress) throws Exception {
        OneStuckSource source = new OneStuckSource(3); // 2 peers x 2 workers: global instance 3 lives on peer 1
        List<Transport> net = InJvmTransports.network(2);
        AtomicReferenceArray<Job> jobs = new AtomicReferenceArray<>(2);
        List<CompletableFuture<List<Long>>> runs = new ArrayList<>();
        for (Transport t : net) {
            runs.add(CompletableFuture.supplyAsync(() -> {
                try (Cluster c = Cluster.over(t, new Cluster.Options(50, 5_000, 20_000))) {
                    Pipeline p = Pipeline.create();
                    CollectSink<WindowResult<Long, Long>> sink = Sinks.collect();
                    p.readFrom(source).withTimestamps(i -> i, 0).keyByLong(i -> 0L).window(Windows.tumbling(100))
                            .aggregate(Aggregations.count()).writeTo(sink);
                    Job job = p.submit(config(2).progress(progress).cluster(c));
                    jobs.set(t.self(), job);
                    job.join();
                    return sink.items().stream().map(r -> r.value()).toList();
                }
            }, r -> Thread.ofPlatform().start(r)));
        }
        String reports = "";
        while (!reports.contains("held back by upstream instance(s) [3 (peer 1)]")) {
            LockSupport.parkNanos(1_000_000);
            reports = (jobs.get(0) == null ? "" : jobs.get(0).progressReport()) + (jobs.get(1) == null ? "" : jobs.get(1).progressReport());
        }
        assertThat(reports).contains("on peer ");
        source.release.countDown();
        List<Long> counts = new ArrayList<>();
        for (CompletableFuture<List<Long>> run : runs) {
            counts.addAll(run.get(30, TimeUnit.SECONDS));
        }
        assertThat(counts).containsExactly(10L);
    }
}
