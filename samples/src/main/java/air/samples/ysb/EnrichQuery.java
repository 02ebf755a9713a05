package air.samples.ysb;

import air.dsl.Aggregations;
import air.dsl.Pipeline;
import air.dsl.Table;
import air.dsl.Windows;
import air.runtime.api.Codec;
import air.runtime.api.JoinType;
import air.runtime.api.SinkFactory;
import air.runtime.api.WindowResult;
import air.runtime.source.GeneratorSource;
import air.samples.ysb.YsbQuery.AdView;
import air.samples.ysb.YsbQuery.CampaignView;
import air.wire.WireIn;
import air.wire.WireOut;
import air.workloads.ysb.CampaignRenames;
import air.workloads.ysb.CampaignRenames.Rename;
import air.workloads.ysb.YsbEvent;
import air.workloads.ysb.YsbGenerator;
import org.eclipse.collections.impl.map.mutable.primitive.LongIntHashMap;
import org.eclipse.collections.impl.map.mutable.primitive.LongLongHashMap;

/**
 * A stream-table enrichment: YSB views looked up against a table of campaign names kept by a
 * second stream, a changelog of renames ({@link CampaignRenames}), as of each view's event time;
 * then counted per 10 s window and (campaign, name version). In every window each campaign is
 * renamed once, so its views split between two names by event time: a lookup that read the table
 * as of arrival instead would count differently.
 */
public final class EnrichQuery {

    /** A view with the name version its campaign had at the view's event time. */
    public record NamedView(long campaignId, int version, long eventTime) { }

    static final Codec<CampaignView> VIEW_CODEC = new Codec<>() {
        @Override public void write(CampaignView v, WireOut out) { out.putLong(v.campaignId()).putLong(v.eventTime()); }
        @Override public CampaignView read(WireIn in) { return new CampaignView(in.getLong(), in.getLong()); }
    };

    static final Codec<Rename> RENAME_CODEC = new Codec<>() {
        @Override public void write(Rename r, WireOut out) { out.putLong(r.campaignId()).putInt(r.version()).putLong(r.eventTime()); }
        @Override public Rename read(WireIn in) { return new Rename(in.getLong(), in.getInt(), in.getLong()); }
    };

    private EnrichQuery() {
    }

    /** How a count becomes a row; {@code campaignOf} gives back the campaign id of a packed key. */
    static YsbResultSink.RowOf<WindowResult<Long, Long>> row(YsbGenerator generator) {
        return (r, rows, t) -> rows.add(r.start(), generator.campaignId((int) (r.key() >>> 32)), r.value(), (int) (long) r.key(), t);
    }

    public static Pipeline build(long n, YsbGenerator generator, long offeredRate, long scheduleStartNanos,
                                 SinkFactory<? super WindowResult<Long, Long>> sink) {
        LongLongHashMap campaignOfAd = generator.adToCampaign();
        LongIntHashMap indexOfCampaign = new LongIntHashMap();
        for (int c = 0; c < YsbGenerator.CAMPAIGNS; c++) {
            indexOfCampaign.put(generator.campaignId(c), c);
        }
        CampaignRenames renames = new CampaignRenames(generator);
        Pipeline pipeline = Pipeline.create();
        Table<Long, Rename> names = pipeline.readFrom(new GeneratorSource<>("campaign-renames", renames.count(n), renames::rename))
                .withTimestamps(Rename::eventTime, 0)
                .keyByLong(Rename::campaignId)
                .toTable(r -> r, RENAME_CODEC);
        pipeline.readFrom(YsbQuery.source(n, generator, offeredRate, scheduleStartNanos))
                .withTimestamps(YsbEvent::eventTime, 0)
                .filter(e -> e.eventType() == YsbEvent.VIEW)
                .map(e -> new AdView(e.adId(), e.eventTime()))
                .map(v -> new CampaignView(campaignOfAd.getOrThrow(v.adId()), v.eventTime()))
                .keyByLong(CampaignView::campaignId)
                .lookupJoin(names, JoinType.INNER, (Long campaign, CampaignView v, Rename name) -> new NamedView(campaign, name.version(),
                        v.eventTime()), VIEW_CODEC)
                .keyByLong(v -> (long) indexOfCampaign.getOrThrow(v.campaignId()) << 32 | v.version())
                .window(Windows.tumbling(YsbGenerator.WINDOW_MS))
                .aggregate(Aggregations.count())
                .writeTo(sink);
        return pipeline;
    }
}
