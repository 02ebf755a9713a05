package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;

import air.dsl.TestPipelines.Event;
import air.runtime.Job;
import air.runtime.api.Emitter;
import air.runtime.api.SourceFactory;
import air.runtime.api.SourceReader;
import air.runtime.api.WindowResult;
import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An idle source instance does not hold windows back: once quiet for the idle timeout it lets
 * event time advance from the newest timestamp seen, and what it emits behind that is late.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IdleSourceTest {

    /**
     * Instance 0 emits its events, then nothing (reads return 0) until released; instance 1 emits
     * nothing until released, then one record for a window that has fired.
     */
    private static final class QuietSource implements SourceFactory<Event> {
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public SourceReader<Event> createReader(int instance, int parallelism) {
            List<Event> before = instance == 0
                    ? List.of(new Event("a", 1, 0), new Event("a", 5, 0), new Event("a", 12, 0), new Event("b", 25, 0))
                    : List.of();
            List<Event> after = instance == 1 ? List.of(new Event("a", 3, 0)) : List.of();
            return new SourceReader<>() {
                int next;

                @Override
                public int read(int max, Emitter<? super Event> out) {
                    if (next < before.size()) {
                        out.emit(before.get(next++));
                        return 1;
                    }
                    if (release.getCount() > 0) {
                        return 0;
                    }
                    int k = next - before.size();
                    if (k < after.size()) {
                        out.emit(after.get(k));
                        next++;
                        return 1;
                    }
                    return EXHAUSTED;
                }

                @Override
                public long position() {
                    return next;
                }

                @Override
                public void seek(long position) {
                    next = (int) position;
                }
            };
        }

        @Override
        public String describe() {
            return "quiet";
        }
    }

    @ParameterizedTest(name = "routing={0} progress={1}")
    @CsvSource({"KEY,WATERMARK", "KEY,HEWMELD", "AIR,HEWMELD", "AIR,WATERMARK"})
    void windows_fire_while_sources_are_idle_and_later_records_behind_them_are_late(Routing routing, Progress progress)
            throws InterruptedException {
        QuietSource source = new QuietSource();
        List<String> results = new CopyOnWriteArrayList<>();
        CountDownLatch allFired = new CountDownLatch(3);
        Pipeline p = Pipeline.create();
        p.readFrom(source).withTimestamps(Event::time, 0).keyBy(Event::key).window(Windows.tumbling(10))
                .aggregate(Aggregations.count())
                .writeTo(Sinks.callback((WindowResult<String, Long> r) -> {
                    results.add("[" + r.start() + "," + r.end() + ") " + r.key() + "=" + r.value());
                    allFired.countDown();
                }));
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Job job = p.submit(config(2).routing(routing).progress(progress).idleTimeoutMs(20).meterRegistry(registry));
        // all three windows fire while both instances are still running, quiet
        boolean fired = allFired.await(30, TimeUnit.SECONDS);
        source.release.countDown();
        job.join();
        assertThat(fired).as("windows fired while the sources were idle; progress: %s", job.progressReport()).isTrue();
        assertThat(results).containsExactlyInAnyOrder("[0,10) a=2", "[10,20) a=1", "[20,30) b=1");
        assertThat(job.summary().lateRecords()).isEqualTo(1);
    }
}
