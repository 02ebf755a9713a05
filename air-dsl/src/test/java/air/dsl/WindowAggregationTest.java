package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;

import air.dsl.TestPipelines.Event;
import air.runtime.Job;
import air.runtime.api.AggregateOp;
import air.runtime.api.WindowDefinition;
import air.runtime.api.WindowResult;
import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import air.runtime.sink.CollectSink;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Keyed windows against hand-computed results, at several worker counts. */
class WindowAggregationTest {

    private static final List<Event> EVENTS = List.of(
            new Event("a", 1, 5), new Event("b", 2, 1), new Event("a", 9, 2),
            new Event("a", 10, 7), new Event("b", 15, 3), new Event("a", 25, 1));

    private static <R> List<String> run(int workers, WindowDefinition window, AggregateOp<? super Event, ?, R> op) {
        return run(workers, Routing.KEY, window, op);
    }

    private static <R> List<String> run(int workers, Routing routing, WindowDefinition window, AggregateOp<? super Event, ?, R> op) {
        return run(workers, routing, Progress.WATERMARK, window, op);
    }

    private static <R> List<String> run(int workers, Routing routing, Progress progress, WindowDefinition window,
                                        AggregateOp<? super Event, ?, R> op) {
        Pipeline p = Pipeline.create();
        CollectSink<WindowResult<String, R>> sink = Sinks.collect();
        p.readFrom(Sources.fromList(EVENTS))
                .withTimestamps(Event::time, 0)
                .keyBy(Event::key)
                .window(window)
                .aggregate(op)
                .writeTo(sink);
        p.execute(config(workers).routing(routing).progress(progress));
        return format(sink.items());
    }

    private static List<String> format(List<? extends WindowResult<?, ?>> results) {
        return results.stream().map(r -> "[" + r.start() + "," + r.end() + ") " + r.key() + "=" + r.value())
                .sorted().collect(Collectors.toList());
    }

    @ParameterizedTest(name = "workers={0} routing={1} progress={2}")
    @CsvSource({"1,KEY,WATERMARK", "2,KEY,WATERMARK", "3,KEY,WATERMARK", "1,AIR,WATERMARK", "2,AIR,WATERMARK", "3,AIR,WATERMARK",
                "1,KEY,HEWMELD", "2,KEY,HEWMELD", "3,KEY,HEWMELD", "1,AIR,HEWMELD", "2,AIR,HEWMELD", "3,AIR,HEWMELD"})
    void tumbling_count(int workers, Routing routing, Progress progress) {
        assertThat(run(workers, routing, progress, Windows.tumbling(10), Aggregations.count())).containsExactly(
                "[0,10) a=2", "[0,10) b=1", "[10,20) a=1", "[10,20) b=1", "[20,30) a=1");
    }

    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {1, 2})
    void tumbling_sum_min_max_average(int workers) {
        assertThat(run(workers, Windows.tumbling(10), Aggregations.sum(Event::value))).containsExactly(
                "[0,10) a=7", "[0,10) b=1", "[10,20) a=7", "[10,20) b=3", "[20,30) a=1");
        assertThat(run(workers, Windows.tumbling(10), Aggregations.min(Event::value))).containsExactly(
                "[0,10) a=2", "[0,10) b=1", "[10,20) a=7", "[10,20) b=3", "[20,30) a=1");
        assertThat(run(workers, Windows.tumbling(10), Aggregations.max(Event::value))).containsExactly(
                "[0,10) a=5", "[0,10) b=1", "[10,20) a=7", "[10,20) b=3", "[20,30) a=1");
        assertThat(run(workers, Windows.tumbling(10), Aggregations.average(Event::value))).containsExactly(
                "[0,10) a=3.5", "[0,10) b=1.0", "[10,20) a=7.0", "[10,20) b=3.0", "[20,30) a=1.0");
    }

    @ParameterizedTest(name = "workers={0} routing={1} progress={2}")
    @CsvSource({"1,KEY,WATERMARK", "2,KEY,WATERMARK", "3,KEY,WATERMARK", "1,AIR,WATERMARK", "2,AIR,WATERMARK", "3,AIR,WATERMARK",
                "1,KEY,HEWMELD", "2,KEY,HEWMELD", "3,KEY,HEWMELD", "1,AIR,HEWMELD", "2,AIR,HEWMELD", "3,AIR,HEWMELD"})
    void sliding_count_combines_frames_into_every_window_they_belong_to(int workers, Routing routing, Progress progress) {
        assertThat(run(workers, routing, progress, Windows.sliding(20, 10), Aggregations.count())).containsExactly(
                "[-10,10) a=2", "[-10,10) b=1",
                "[0,20) a=3", "[0,20) b=2",
                "[10,30) a=2", "[10,30) b=1",
                "[20,40) a=1");
    }

    @ParameterizedTest(name = "workers={0} routing={1}")
    @CsvSource({"1,KEY", "2,KEY", "2,AIR", "3,AIR"})
    void user_defined_aggregate_op(int workers, Routing routing) {
        AggregateOp<Event, TreeSet<Long>, String> distinctValues = Aggregations.of("distinct-values",
                TreeSet::new, (set, e) -> set.add(e.value()), TreeSet::addAll, TreeSet::toString);
        assertThat(run(workers, routing, Windows.tumbling(20), distinctValues)).containsExactly(
                "[0,20) a=[2, 5, 7]", "[0,20) b=[1, 3]", "[20,40) a=[1]");
    }

    @ParameterizedTest(name = "workers={0}")
    @ValueSource(ints = {1, 2})
    void reduce_keeps_the_largest_value(int workers) {
        Pipeline p = Pipeline.create();
        CollectSink<WindowResult<String, Event>> sink = Sinks.collect();
        p.readFrom(Sources.fromList(EVENTS))
                .withTimestamps(Event::time, 0)
                .keyBy(Event::key)
                .window(Windows.tumbling(100))
                .reduce((x, y) -> x.value() >= y.value() ? x : y)
                .writeTo(sink);
        p.execute(config(workers));
        assertThat(sink.items()).extracting(r -> r.key() + "=" + r.value().value()).containsExactlyInAnyOrder("a=7", "b=3");
    }

    @ParameterizedTest(name = "workers={0} progress={1}")
    @CsvSource({"1,WATERMARK", "2,WATERMARK", "1,HEWMELD", "2,HEWMELD", "3,HEWMELD"})
    void long_keys_and_a_second_window_stage_behind_a_second_shuffle(int workers, Progress progress) {
        Pipeline p = Pipeline.create();
        CollectSink<WindowResult<Long, Long>> sink = Sinks.collect();
        p.readFrom(Sources.generate(1000, i -> i))
                .withTimestamps(i -> i, 0)
                .keyByLong(i -> i % 7)
                .window(Windows.tumbling(100))
                .aggregate(Aggregations.count())
                .keyByLong(r -> 0L)
                .window(Windows.tumbling(500))
                .aggregate(Aggregations.sum(WindowResult::value))
                .writeTo(sink);
        p.execute(config(workers).progress(progress));
        assertThat(format(sink.items())).containsExactly("[0,500) 0=500", "[500,1000) 0=500");
    }

    @Test
    void hew_meld_drops_and_counts_records_of_released_epochs() {
        List<Event> disordered = List.of(new Event("a", 1, 0), new Event("a", 20, 0), new Event("a", 5, 0), new Event("a", 15, 0));
        Pipeline p = Pipeline.create();
        CollectSink<WindowResult<String, Long>> sink = Sinks.collect();
        p.readFrom(Sources.fromList(disordered)).withTimestamps(Event::time, 0)
                .keyBy(Event::key).window(Windows.tumbling(10)).aggregate(Aggregations.count()).writeTo(sink);
        Job job = p.execute(config(1).batchSize(1).progress(Progress.HEWMELD));
        // 5 falls in epoch [0,10), released when 20 arrived; 15 is in [10,20), released too (20 - 0 - 1 >= 19)
        assertThat(format(sink.items())).containsExactly("[0,10) a=1", "[20,30) a=1");
        assertThat(job.summary().lateRecords()).isEqualTo(2);
    }

    @Test
    void late_records_are_dropped_and_counted_and_disorder_within_the_bound_is_kept() {
        List<Event> disordered = List.of(new Event("a", 1, 0), new Event("a", 20, 0), new Event("a", 5, 0));
        assertThat(runDisordered(disordered, 0, 1)).containsExactly("[0,10) a=1", "[20,30) a=1", "late=1");
        assertThat(runDisordered(disordered, 15, 1)).containsExactly("[0,10) a=2", "[20,30) a=1", "late=0");
    }

    @ParameterizedTest(name = "progress={0}")
    @ValueSource(strings = {"WATERMARK", "HEWMELD"})
    void late_records_can_go_to_a_side_output(Progress progress) {
        List<Event> disordered = List.of(new Event("a", 1, 0), new Event("a", 20, 0), new Event("a", 5, 7));
        Pipeline p = Pipeline.create();
        CollectSink<WindowResult<String, Long>> sink = Sinks.collect();
        CollectSink<Event> late = Sinks.collect();
        p.readFrom(Sources.fromList(disordered)).withTimestamps(Event::time, 0)
                .keyBy(Event::key).window(Windows.tumbling(10)).sideOutputLateRecords(late)
                .aggregate(Aggregations.count()).writeTo(sink);
        p.execute(config(1).batchSize(1).progress(progress));
        assertThat(format(sink.items())).containsExactly("[0,10) a=1", "[20,30) a=1");
        assertThat(late.items()).containsExactly(new Event("a", 5, 7));
    }

    @Test
    void a_record_late_by_the_rule_is_late_even_when_no_periodic_watermark_was_published_since() {
        List<Event> disordered = List.of(new Event("a", 1, 0), new Event("a", 20, 0), new Event("a", 5, 0));
        Pipeline p = Pipeline.create();
        CollectSink<WindowResult<String, Long>> sink = Sinks.collect();
        p.readFrom(Sources.fromList(disordered)).withTimestamps(Event::time, 0)
                .keyBy(Event::key).window(Windows.tumbling(10)).aggregate(Aggregations.count()).writeTo(sink);
        // an hour-long period: only the first batch publishes periodically, yet 5 comes after 20 with no disorder allowed
        Job job = p.execute(config(1).batchSize(1).watermarkIntervalMs(3_600_000));
        assertThat(format(sink.items())).containsExactly("[0,10) a=1", "[20,30) a=1");
        assertThat(job.summary().lateRecords()).isEqualTo(1);
    }

    private static List<String> runDisordered(List<Event> events, long disorder, int workers) {
        Pipeline p = Pipeline.create();
        CollectSink<WindowResult<String, Long>> sink = Sinks.collect();
        p.readFrom(Sources.fromList(events))
                .withTimestamps(Event::time, disorder)
                .keyBy(Event::key)
                .window(Windows.tumbling(10))
                .aggregate(Aggregations.count())
                .writeTo(sink);
        Job job = p.execute(config(workers).batchSize(1));
        List<String> out = new ArrayList<>(format(sink.items()));
        out.add("late=" + job.summary().lateRecords());
        return out;
    }
}
