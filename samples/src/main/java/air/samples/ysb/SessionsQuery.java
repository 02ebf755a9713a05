package air.samples.ysb;

import air.dsl.Aggregations;
import air.dsl.Pipeline;
import air.dsl.Windows;
import air.runtime.api.SinkFactory;
import air.runtime.api.WindowResult;
import air.workloads.ysb.YsbEvent;
import air.workloads.ysb.YsbGenerator;

/**
 * Sessions (YSB-SPEC section 11, docs/ysb-mem.md): every YSB event keyed by its ad and counted per
 * event-time session of gap G: a session of an ad ends when the ad's next event comes G ms or more
 * after its previous one, and is {@code [first event time, last event time + G)}. At a low logical
 * rate (e.g. 1000 events/s: about one event per ad per second) sessions open and close all the
 * time. The engine routes sessions by key whatever the job's routing.
 *
 * <p>The spec's rule ends a session at a gap of G <em>or more</em>; the engine's session windows
 * follow Flink's {@code EventTimeSessionWindows}, where windows that touch merge, so a session ends
 * only at a gap of <em>more</em> than its gap. Event times are whole milliseconds, so the spec's
 * sessions are the engine's sessions of gap {@code G - 1}, each reported with its end one
 * millisecond later ({@code last + G}); hence {@code --gap} is at least 2.
 */
public final class SessionsQuery {

    /** The spec's default gap. */
    public static final long DEFAULT_GAP_MS = 2_000;

    /** The logical rate the sessions query runs at unless {@code --rate} says otherwise. */
    public static final long DEFAULT_RATE = 1_000;

    /** How a session's count becomes a row: start, ad, count and (in the second column) the spec's end, {@code last + G}. */
    static final YsbResultSink.RowOf<WindowResult<Long, Long>> ROW = (r, rows, t) -> rows.add(r.start(), r.key(), r.value(), r.end() + 1,
            t);

    private SessionsQuery() {
    }

    public static Pipeline build(long n, YsbGenerator generator, long offeredRate, long scheduleStartNanos, long gapMs,
                                 SinkFactory<? super WindowResult<Long, Long>> sink) {
        Pipeline pipeline = Pipeline.create();
        pipeline.readFrom(YsbQuery.source(n, generator, offeredRate, scheduleStartNanos))
                .withTimestamps(YsbEvent::eventTime, 0)
                .keyByLong(YsbEvent::adId)
                .window(Windows.session(gapMs - 1)) // the spec's gap of G or more: touching sessions of G - 1 merge
                .aggregate(Aggregations.count())
                .writeTo(sink);
        return pipeline;
    }
}
