package air.samples.ysb;

import air.dsl.Aggregations;
import air.dsl.Pipeline;
import air.dsl.Windows;
import air.runtime.api.SinkFactory;
import air.runtime.api.WindowValue;
import air.workloads.ysb.YsbEvent;
import air.workloads.ysb.YsbGenerator;

/**
 * WA (YSB-SPEC section 10) written with the DSL: every YSB event counted per 10 s tumbling
 * window over the whole stream, with no key. Under AIR routing window {@code k}'s partials all go
 * to instance {@code k mod N}; under KEY routing the single key's owner finalises every window.
 */
public final class WaQuery {

    /** How a window's count becomes a row. */
    static final YsbResultSink.RowOf<WindowValue<Long>> ROW = (r, rows, t) -> rows.add(r.start(), 0, r.value(), 0, t);

    private WaQuery() {
    }

    public static Pipeline build(long n, YsbGenerator generator, long offeredRate, long scheduleStartNanos,
                                 SinkFactory<? super WindowValue<Long>> sink) {
        Pipeline pipeline = Pipeline.create();
        pipeline.readFrom(YsbQuery.source(n, generator, offeredRate, scheduleStartNanos))
                .withTimestamps(YsbEvent::eventTime, 0)
                .window(Windows.tumbling(YsbGenerator.WINDOW_MS))
                .aggregate(Aggregations.count())
                .writeTo(sink);
        return pipeline;
    }
}
