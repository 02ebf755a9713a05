package quickstart;

import air.dsl.Aggregations;
import air.dsl.Pipeline;
import air.dsl.Sinks;
import air.dsl.Sources;
import air.dsl.WindowedStage;
import air.dsl.Windows;
import air.runtime.JobConfig;
import air.runtime.api.JoinType;
import air.runtime.api.SinkFactory;
import air.runtime.api.WindowResult;
import java.util.List;

/**
 * A window join of two streams: per ad and minute, how many of its views were followed by a
 * click. Ads with views and no clicks still appear (a left join), with a rate of 0.
 */
public final class ClickThrough {

    /** An ad was shown. */
    public record View(long time, long adId) { }

    /** An ad was clicked. */
    public record Click(long time, long adId) { }

    /** An ad's views and clicks in one window. */
    public record Rate(long views, long clicks) {
        public double rate() {
            return views == 0 ? 0 : (double) clicks / views;
        }
    }

    private ClickThrough() {
    }

    public static Pipeline pipeline(List<View> views, List<Click> clicks, SinkFactory<? super WindowResult<Long, Rate>> sink) {
        Pipeline p = Pipeline.create();
        WindowedStage<Long, View> viewsPerAd = p.readFrom(Sources.fromList(views))
                .withTimestamps(View::time, 0)
                .keyByLong(View::adId)
                .window(Windows.tumbling(60_000));
        WindowedStage<Long, Click> clicksPerAd = p.readFrom(Sources.fromList(clicks))
                .withTimestamps(Click::time, 0)
                .keyByLong(Click::adId)
                .window(Windows.tumbling(60_000));
        viewsPerAd.join(clicksPerAd, Aggregations.count(), Aggregations.count(), JoinType.LEFT,
                        (ad, v, c) -> new Rate(v, c == null ? 0 : c))
                .writeTo(sink);
        return p;
    }

    public static List<View> sampleViews() {
        return List.of(new View(1_000, 7), new View(2_000, 7), new View(3_000, 8), new View(4_000, 7), new View(61_000, 8));
    }

    public static List<Click> sampleClicks() {
        return List.of(new Click(2_500, 7), new Click(62_000, 8));
    }

    public static void main(String[] args) {
        pipeline(sampleViews(), sampleClicks(), Sinks.print()).execute(JobConfig.defaults().workers(2));
    }
}
