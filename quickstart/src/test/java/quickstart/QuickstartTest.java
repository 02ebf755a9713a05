package quickstart;

import static org.junit.jupiter.api.Assertions.assertEquals;

import air.dsl.Sinks;
import air.runtime.JobConfig;
import air.runtime.api.WindowResult;
import air.runtime.sink.CollectSink;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Runs each quickstart job and checks every result it emits, on one worker and on several. */
class QuickstartTest {

    private static TreeSet<String> rows(List<? extends WindowResult<?, ?>> results) {
        TreeSet<String> rows = new TreeSet<>();
        for (WindowResult<?, ?> r : results) {
            rows.add("[" + r.start() + "," + r.end() + ") " + r.key() + "=" + r.value());
        }
        return rows;
    }

    @Test
    void word_count_counts_every_word_once_per_window() {
        for (int workers = 1; workers <= 3; workers++) {
            CollectSink<WindowResult<String, Long>> sink = Sinks.collect();
            WordCount.pipeline(WordCount.sample(), sink).execute(JobConfig.defaults().workers(workers));
            assertEquals(new TreeSet<>(List.of(
                    "[0,10000) brown=1", "[0,10000) dog=2", "[0,10000) fox=1", "[0,10000) jumps=1", "[0,10000) lazy=1",
                    "[0,10000) over=1", "[0,10000) quick=1", "[0,10000) sleeps=1", "[0,10000) the=3",
                    "[10000,20000) a=1", "[10000,20000) at=1", "[10000,20000) barks=1", "[10000,20000) dog=1",
                    "[10000,20000) fox=2", "[10000,20000) runs=1", "[10000,20000) the=2",
                    "[20000,30000) quick=3")), rows(sink.items()), "workers=" + workers);
        }
    }

    @Test
    void click_through_joins_views_and_clicks_per_ad_and_minute() {
        for (int workers = 1; workers <= 3; workers++) {
            CollectSink<WindowResult<Long, ClickThrough.Rate>> sink = Sinks.collect();
            ClickThrough.pipeline(ClickThrough.sampleViews(), ClickThrough.sampleClicks(), sink)
                    .execute(JobConfig.defaults().workers(workers));
            assertEquals(new TreeSet<>(List.of(
                    "[0,60000) 7=Rate[views=3, clicks=1]", "[0,60000) 8=Rate[views=1, clicks=0]",
                    "[60000,120000) 8=Rate[views=1, clicks=1]")), rows(sink.items()), "workers=" + workers);
        }
    }
}
