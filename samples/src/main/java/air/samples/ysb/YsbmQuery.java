package air.samples.ysb;

import air.dsl.Aggregations;
import air.dsl.Pipeline;
import air.dsl.Stage;
import air.dsl.WindowedStage;
import air.dsl.Windows;
import air.runtime.api.JoinType;
import air.runtime.api.SinkFactory;
import air.runtime.api.WindowResult;
import air.samples.ysb.YsbQuery.AdView;
import air.samples.ysb.YsbQuery.CampaignView;
import air.workloads.ysb.YsbEvent;
import air.workloads.ysb.YsbGenerator;
import org.eclipse.collections.impl.map.mutable.primitive.LongLongHashMap;

/**
 * YSBM (YSB-SPEC section 9) written with the DSL: one source of YSB events feeds two branches,
 * clicks and views, each filtered, projected, joined with its campaign and counted per campaign
 * and 10 s tumbling window; the engine's window join combines the two counts per (window,
 * campaign), inner, into a {@link ClicksViews} (its {@code ratio_ppm} is written with the row).
 */
public final class YsbmQuery {

    /** One (window, campaign)'s clicks and views. */
    public record ClicksViews(long clicks, long views) { }

    /** How a join result becomes a row. */
    static final YsbResultSink.RowOf<WindowResult<Long, ClicksViews>> ROW =
            (r, rows, t) -> rows.add(r.start(), r.key(), r.value().clicks(), r.value().views(), t);

    private YsbmQuery() {
    }

    public static Pipeline build(long n, YsbGenerator generator, long offeredRate, long scheduleStartNanos,
                                 SinkFactory<? super WindowResult<Long, ClicksViews>> sink) {
        LongLongHashMap campaignOfAd = generator.adToCampaign();
        Pipeline pipeline = Pipeline.create();
        Stage<YsbEvent> events = pipeline.readFrom(YsbQuery.source(n, generator, offeredRate, scheduleStartNanos))
                .withTimestamps(YsbEvent::eventTime, 0);
        WindowedStage<Long, CampaignView> clicks = branch(events.filter(e -> e.eventType() == YsbEvent.CLICK).named("clicks"),
                campaignOfAd);
        WindowedStage<Long, CampaignView> views = branch(events.filter(e -> e.eventType() == YsbEvent.VIEW).named("views"),
                campaignOfAd);
        clicks.join(views, Aggregations.count(), Aggregations.count(), JoinType.INNER, (Long campaign, Long c, Long v) -> new ClicksViews(c, v))
                .named("clicks-join-views")
                .writeTo(sink);
        return pipeline;
    }

    /** One branch after its filter: project, join the campaign in a hash map, key by campaign, window. */
    private static WindowedStage<Long, CampaignView> branch(Stage<YsbEvent> filtered, LongLongHashMap campaignOfAd) {
        return filtered.map(e -> new AdView(e.adId(), e.eventTime()))
                .map(v -> new CampaignView(campaignOfAd.getOrThrow(v.adId()), v.eventTime()))
                .keyByLong(CampaignView::campaignId)
                .window(Windows.tumbling(YsbGenerator.WINDOW_MS));
    }
}
