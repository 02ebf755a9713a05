package air.samples.ysb;

import air.dsl.Aggregations;
import air.dsl.Pipeline;
import air.dsl.Windows;
import air.runtime.api.SinkFactory;
import air.runtime.api.WindowResult;
import air.workloads.ysb.YsbEvent;
import air.workloads.ysb.YsbGenerator;

/**
 * A job with large keyed state over the YSB events: every event counted per (10 s tumbling window,
 * user id mod 2^20). At a logical rate of 1M events/s each window holds about a million keys, so
 * checkpoints carry that many accumulators per window in flight.
 */
final class UsersQuery {

    private UsersQuery() {
    }

    static long keyOf(YsbEvent e) {
        return e.userId() & (YsbArgs.Query.USER_KEYS - 1);
    }

    static Pipeline build(long n, YsbGenerator generator, long offeredRate, long scheduleStartNanos,
                          SinkFactory<? super WindowResult<Long, Long>> sink) {
        Pipeline pipeline = Pipeline.create();
        pipeline.readFrom(YsbQuery.source(n, generator, offeredRate, scheduleStartNanos))
                .withTimestamps(YsbEvent::eventTime, 0)
                .keyByLong(UsersQuery::keyOf)
                .window(Windows.tumbling(YsbGenerator.WINDOW_MS))
                .aggregate(Aggregations.count())
                .writeTo(sink);
        return pipeline;
    }
}
