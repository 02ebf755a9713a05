package air.dsl;

import static air.dsl.TestPipelines.config;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.dsl.TestPipelines.Event;
import air.runtime.JobFailedException;
import air.runtime.api.BadRecordPolicy;
import air.runtime.api.EventTime;
import air.runtime.api.WindowDefinition;
import air.runtime.api.WindowResult;
import air.runtime.sink.CollectSink;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Event times at the edges of {@code long}: a record near {@code Long.MAX_VALUE} once overflowed
 * the window arithmetic (a sliding window then stepped one slide at a time towards the end of time,
 * and tumbling results had {@code end < start}). Event times outside {@link EventTime#MIN} ..
 * {@link EventTime#MAX} now go to the stage's bad-record policy, named; the largest allowed ones
 * give exact windows; spans beyond {@link EventTime#MAX_SPAN} are refused when the pipeline is built.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class EventTimeRangeTest {

    private static final List<String> SHAPES = List.of("tumbling", "sliding", "session");

    private static WindowedStage<String, Event> windowed(Stage<Event> timed, String shape) {
        return switch (shape) {
            case "tumbling" -> timed.keyBy(Event::key).window(Windows.tumbling(1_000));
            case "sliding" -> timed.keyBy(Event::key).window(Windows.sliding(3_000, 1_000));
            case "session" -> timed.keyBy(Event::key).window(Windows.session(1_000));
            default -> throw new IllegalArgumentException(shape);
        };
    }

    private static List<WindowResult<String, Long>> counts(List<Event> events, String shape, Function<Stage<Event>, Stage<Event>> policy,
            int workers) {
        Pipeline p = Pipeline.create();
        CollectSink<WindowResult<String, Long>> out = Sinks.collect();
        windowed(policy.apply(p.readFrom(Sources.fromList(events)).withTimestamps(Event::time, 0)), shape)
                .aggregate(Aggregations.count()).writeTo(out);
        p.execute(config(workers));
        return out.items().stream().sorted((a, b) -> Long.compare(a.start(), b.start())).toList();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tumbling", "sliding", "session"})
    void a_record_near_the_end_of_time_fails_the_job_naming_it(String shape) {
        List<Event> events = List.of(new Event("a", 1_000, 1), new Event("a", Long.MAX_VALUE - 1, 1));
        assertThatThrownBy(() -> counts(events, shape, s -> s, 2)).isInstanceOf(JobFailedException.class)
                .hasMessageContaining("withTimestamps").hasMessageContaining(String.valueOf(Long.MAX_VALUE - 1))
                .hasMessageContaining("Event[key=a, time=" + (Long.MAX_VALUE - 1));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tumbling", "sliding", "session"})
    void skipped_out_of_range_records_leave_exact_windows_and_the_job_ends(String shape) {
        List<Event> events = List.of(new Event("a", 1_000, 1), new Event("a", Long.MAX_VALUE - 1, 1), new Event("a", Long.MIN_VALUE + 1, 1),
                new Event("a", EventTime.MAX + 1, 1), new Event("a", EventTime.MIN - 1, 1));
        List<WindowResult<String, Long>> got = counts(events, shape, s -> s.onBadRecord(BadRecordPolicy.skip()), 2);
        assertThat(got).isEqualTo(expected(shape, 1_000));
    }

    @Test
    void the_largest_and_smallest_allowed_times_give_exact_windows() {
        for (String shape : SHAPES) {
            List<Event> events = List.of(new Event("a", EventTime.MIN, 1), new Event("a", 1_000, 1), new Event("a", EventTime.MAX, 1));
            List<WindowResult<String, Long>> got = counts(events, shape, s -> s, 2);
            List<WindowResult<String, Long>> want = new ArrayList<>(expected(shape, EventTime.MIN));
            want.addAll(expected(shape, 1_000));
            want.addAll(expected(shape, EventTime.MAX));
            assertThat(got).as(shape).isEqualTo(want);
            assertThat(got).as(shape + ": no window ends before it starts").allMatch(r -> r.end() > r.start());
        }
    }

    /** The windows of {@link #windowed}'s shapes that one record at {@code t} gives, by start. */
    private static List<WindowResult<String, Long>> expected(String shape, long t) {
        long frame = Math.floorDiv(t, 1_000) * 1_000;
        return switch (shape) {
            case "tumbling" -> List.of(new WindowResult<>(frame, frame + 1_000, "a", 1L));
            case "sliding" -> List.of(new WindowResult<>(frame - 2_000, frame + 1_000, "a", 1L),
                    new WindowResult<>(frame - 1_000, frame + 2_000, "a", 1L), new WindowResult<>(frame, frame + 3_000, "a", 1L));
            case "session" -> List.of(new WindowResult<>(t, t + 1_000, "a", 1L));
            default -> throw new IllegalArgumentException(shape);
        };
    }

    @Test
    void spans_beyond_the_bound_are_refused_when_the_pipeline_is_built() {
        assertThatThrownBy(() -> Windows.tumbling(EventTime.MAX_SPAN + 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Windows.tumbling").hasMessageContaining(String.valueOf(EventTime.MAX_SPAN));
        assertThatThrownBy(() -> new WindowDefinition(Long.MAX_VALUE, Long.MAX_VALUE)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(String.valueOf(EventTime.MAX_SPAN));
        Pipeline p = Pipeline.create();
        assertThatThrownBy(() -> p.readFrom(Sources.fromList(List.of(new Event("a", 1, 1)))).withTimestamps(Event::time, Long.MAX_VALUE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("withTimestamps")
                .hasMessageContaining(String.valueOf(EventTime.MAX_SPAN));
    }
}
