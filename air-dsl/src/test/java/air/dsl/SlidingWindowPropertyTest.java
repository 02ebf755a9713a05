package air.dsl;

import static org.assertj.core.api.Assertions.assertThat;

import air.dsl.TestPipelines.Event;
import air.runtime.api.WindowDefinition;
import air.runtime.api.WindowResult;
import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import air.runtime.sink.CollectSink;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Sliding windows under both progress modes and both routings, on seeded random inputs with
 * disorder inside the allowed bound, against a plain batch computation of the same input.
 */
class SlidingWindowPropertyTest {

    private static final int SEEDS = 60;

    @Test
    void every_combination_equals_the_batch_computation() {
        for (int seed = 0; seed < SEEDS; seed++) {
            SplittableRandom random = new SplittableRandom(seed);
            long slide = 1 + random.nextInt(20);
            WindowDefinition window = Windows.sliding(slide * (1 + random.nextInt(5)), slide);
            long disorder = random.nextInt(30);
            List<Event> events = events(random, 50 + random.nextInt(400), disorder);
            Map<String, Long> expected = batch(events, window);
            int workers = 1 + random.nextInt(3);
            int batch = 1 + random.nextInt(8);
            for (Routing routing : Routing.values()) {
                for (Progress progress : Progress.values()) {
                    String where = "seed " + seed + ", " + window + ", disorder " + disorder + ", workers " + workers
                            + ", " + routing + "/" + progress;
                    assertThat(run(events, window, disorder, workers, batch, routing, progress)).as(where).isEqualTo(expected);
                }
            }
        }
    }

    private static List<Event> events(SplittableRandom random, int n, long disorder) {
        return TestPipelines.disorderedEvents(random, n, disorder, 5, 1);
    }

    private static Map<String, Long> batch(List<Event> events, WindowDefinition window) {
        Map<String, Long> counts = new TreeMap<>();
        for (Event e : events) {
            long last = Math.floorDiv(e.time(), window.slide()) * window.slide();
            for (long start = last; start > e.time() - window.size(); start -= window.slide()) {
                counts.merge("[" + start + "," + (start + window.size()) + ") " + e.key(), 1L, Long::sum);
            }
        }
        return counts;
    }

    private static Map<String, Long> run(List<Event> events, WindowDefinition window, long disorder, int workers, int batch,
                                         Routing routing, Progress progress) {
        Pipeline p = Pipeline.create();
        CollectSink<WindowResult<String, Long>> sink = Sinks.collect();
        p.readFrom(Sources.fromList(events)).withTimestamps(Event::time, disorder)
                .keyBy(Event::key).window(window).aggregate(Aggregations.count()).writeTo(sink);
        p.execute(TestPipelines.config(workers).batchSize(batch).routing(routing).progress(progress));
        Map<String, Long> out = new TreeMap<>();
        for (WindowResult<String, Long> r : sink.items()) {
            Long before = out.put("[" + r.start() + "," + r.end() + ") " + r.key(), r.value());
            assertThat(before).as("duplicate result " + r).isNull();
        }
        return out;
    }
}
