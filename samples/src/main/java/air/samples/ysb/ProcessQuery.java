package air.samples.ysb;

import air.dsl.Pipeline;
import air.runtime.api.Codec;
import air.runtime.api.Codecs;
import air.runtime.api.KeyedProcessFunction;
import air.runtime.api.MapState;
import air.runtime.api.ProcessContext;
import air.runtime.api.SinkFactory;
import air.runtime.api.StateDescriptor;
import air.runtime.api.TimeDomain;
import air.runtime.api.WindowResult;
import air.samples.ysb.YsbQuery.AdView;
import air.samples.ysb.YsbQuery.CampaignView;
import air.wire.WireIn;
import air.wire.WireOut;
import air.workloads.ysb.YsbEvent;
import air.workloads.ysb.YsbGenerator;
import org.eclipse.collections.impl.map.mutable.primitive.LongLongHashMap;

/**
 * YSB-mem (YSB-SPEC section 6: views counted per campaign and 10 s event-time window) written as a
 * keyed process function instead of the built-in window aggregation: the same chain up to
 * {@code keyByLong(campaign)}, then {@code process(...)} with, per campaign, a map state window
 * start -> views so far and an event-time timer at each window's end, registered when the window
 * opens. The timer emits {@code (window, campaign, count)} and removes the window from the map.
 * Its rows are the YSB query's, byte for byte: the same reference checksums (YSB-SPEC 6.3) and the
 * same output check; with {@code --checkpoints} or {@code --replicas} the map and the timers are
 * what a restore or a takeover must bring back.
 */
public final class ProcessQuery {

    /** Per campaign: window start -> views counted so far. */
    public static final StateDescriptor<MapState<Long, Long>> COUNTS = StateDescriptor.map("views per window", Codecs.LONG, Codecs.LONG);

    /** A view crossing peers: campaign and event time, sixteen bytes. */
    static final Codec<CampaignView> VIEW = new Codec<>() {
        @Override
        public void write(CampaignView value, WireOut out) {
            out.putLong(value.campaignId());
            out.putLong(value.eventTime());
        }

        @Override
        public CampaignView read(WireIn in) {
            return new CampaignView(in.getLong(), in.getLong());
        }
    };

    /** Counts a campaign's views per window; the window's timer emits its count and forgets it. */
    public static final class CountPerWindow implements KeyedProcessFunction<Long, CampaignView, WindowResult<Long, Long>> {

        @Override
        public void process(CampaignView v, ProcessContext<Long, WindowResult<Long, Long>> ctx) {
            long window = v.eventTime() - Math.floorMod(v.eventTime(), YsbGenerator.WINDOW_MS); // aligned to the epoch, as Windows.tumbling
            MapState<Long, Long> counts = ctx.state(COUNTS);
            Long n = counts.get(window);
            if (n == null) {
                counts.put(window, 1L);
                // fires once every view at or before the window's last millisecond has arrived
                ctx.registerEventTimeTimer(window + YsbGenerator.WINDOW_MS - 1);
            } else {
                counts.put(window, n + 1);
            }
        }

        @Override
        public void onTimer(long time, TimeDomain domain, ProcessContext<Long, WindowResult<Long, Long>> ctx) {
            long window = time + 1 - YsbGenerator.WINDOW_MS;
            MapState<Long, Long> counts = ctx.state(COUNTS);
            Long n = counts.get(window);
            if (n == null) {
                throw new IllegalStateException("process query: the timer of window " + window + " of campaign " + ctx.key()
                        + " fired but the window has no count (state lost, or the timer fired twice)");
            }
            ctx.emit(new WindowResult<>(window, window + YsbGenerator.WINDOW_MS, ctx.key(), n));
            counts.remove(window);
        }
    }

    private ProcessQuery() {
    }

    /**
     * Builds the pipeline: filter views, project, join ad to campaign in a hash map, key by
     * campaign, count per 10 s window in a keyed process function.
     *
     * @param offeredRate events per wall second, 0 for throughput mode
     * @param scheduleStartNanos {@code t_s} of the latency schedule (ignored in throughput mode)
     */
    public static Pipeline build(long n, YsbGenerator generator, long offeredRate, long scheduleStartNanos,
                                 SinkFactory<? super WindowResult<Long, Long>> sink) {
        LongLongHashMap campaignOfAd = generator.adToCampaign();
        Pipeline pipeline = Pipeline.create();
        pipeline.readFrom(YsbQuery.source(n, generator, offeredRate, scheduleStartNanos))
                .withTimestamps(YsbEvent::eventTime, 0)
                .filter(e -> e.eventType() == YsbEvent.VIEW)
                .map(e -> new AdView(e.adId(), e.eventTime()))
                .map(v -> new CampaignView(campaignOfAd.getOrThrow(v.adId()), v.eventTime()))
                .keyByLong(CampaignView::campaignId)
                .process(new CountPerWindow(), VIEW, COUNTS)
                .named("count per campaign and window")
                .writeTo(sink);
        return pipeline;
    }
}
