package air.samples.ysb;

import air.dsl.Aggregations;
import air.dsl.Pipeline;
import air.dsl.Windows;
import air.runtime.api.SinkFactory;
import air.runtime.api.SourceFactory;
import air.runtime.api.WindowResult;
import air.runtime.source.GeneratorSource;
import air.workloads.ysb.YsbEvent;
import air.workloads.ysb.YsbGenerator;
import air.workloads.ysb.YsbSources;
import org.eclipse.collections.impl.map.mutable.primitive.LongLongHashMap;

/** The YSB-mem query (YSB-SPEC section 6) written with the DSL. */
public final class YsbQuery {

    /** The projection of a view: (ad_id, event_time). */
    public record AdView(long adId, long eventTime) { }

    /** A view joined with its campaign. */
    public record CampaignView(long campaignId, long eventTime) { }

    private YsbQuery() {
    }

    /** The YSB-mem events, paced at {@code offeredRate} from {@code scheduleStartNanos} in latency mode. */
    static GeneratorSource<YsbEvent> source(long n, YsbGenerator generator, long offeredRate, long scheduleStartNanos) {
        GeneratorSource<YsbEvent> source = YsbSources.mem(n, generator);
        return offeredRate > 0 ? source.paced(offeredRate, scheduleStartNanos) : source;
    }

    /**
     * Builds the pipeline: filter views, project, join ad to campaign in a hash map, key by
     * campaign, count per 10 s tumbling window.
     *
     * @param offeredRate events per wall second, 0 for throughput mode
     * @param scheduleStartNanos {@code t_s} of the latency schedule (ignored in throughput mode)
     */
    public static Pipeline build(long n, YsbGenerator generator, long offeredRate, long scheduleStartNanos,
                                 SinkFactory<? super WindowResult<Long, Long>> sink) {
        return build(source(n, generator, offeredRate, scheduleStartNanos), generator, sink);
    }

    /** The same query over events from {@code events} (a Kafka topic, say): each instance must read its events in time order. */
    public static Pipeline build(SourceFactory<YsbEvent> events, YsbGenerator generator, SinkFactory<? super WindowResult<Long, Long>> sink) {
        LongLongHashMap campaignOfAd = generator.adToCampaign();
        Pipeline pipeline = Pipeline.create();
        pipeline.readFrom(events)
                .withTimestamps(YsbEvent::eventTime, 0)
                .filter(e -> e.eventType() == YsbEvent.VIEW)
                .map(e -> new AdView(e.adId(), e.eventTime()))
                .map(v -> new CampaignView(campaignOfAd.getOrThrow(v.adId()), v.eventTime()))
                .keyByLong(CampaignView::campaignId)
                .window(Windows.tumbling(YsbGenerator.WINDOW_MS))
                .aggregate(Aggregations.count())
                .writeTo(sink);
        return pipeline;
    }
}
