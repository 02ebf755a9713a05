package air.benchmarks;

import air.workloads.ysb.YsbEvent;
import air.workloads.ysb.YsbGenerator;
import air.samples.ysb.YsbArgs;
import java.util.Locale;
import org.eclipse.collections.impl.map.mutable.primitive.LongLongHashMap;
import org.eclipse.collections.impl.map.mutable.primitive.LongObjectHashMap;

/**
 * The baseline: the YSB-mem query as a plain hand-written single-threaded loop, with the same
 * generator, the same materialised event, the same hash-map join and a per-window count map.
 * {@code YsbLoop N} prints a RESULT line with engine=loop.
 */
public final class YsbLoop {

    private YsbLoop() {
    }

    public static void main(String[] argv) {
        YsbArgs args = YsbArgs.parse(argv);
        YsbGenerator generator = new YsbGenerator(args.seed(), args.rate());
        LongLongHashMap campaignOfAd = generator.adToCampaign();
        LongObjectHashMap<LongLongHashMap> counts = new LongObjectHashMap<>();
        long start = System.nanoTime();
        long currentWindow = Long.MIN_VALUE;
        LongLongHashMap current = null;
        for (long i = 0; i < args.n(); i++) {
            YsbEvent e = generator.event(i);
            if (e.eventType() != YsbEvent.VIEW) {
                continue;
            }
            long campaign = campaignOfAd.getOrThrow(e.adId());
            long window = e.eventTime() - e.eventTime() % YsbGenerator.WINDOW_MS;
            if (window != currentWindow) {
                current = counts.getIfAbsentPut(window, LongLongHashMap::new);
                currentWindow = window;
            }
            current.addToValue(campaign, 1);
        }
        long runNanos = System.nanoTime() - start;
        long views = 0;
        long rows = 0;
        for (LongLongHashMap m : counts.values()) {
            views += m.sum();
            rows += m.size();
        }
        System.out.printf(Locale.ROOT, "RESULT engine=loop p=1 java=%d mode=throughput n=%d seed=%d rate=%d offered=0 windows=%d rows=%d"
                        + " views=%d run_s=%.3f throughput_eps=%.0f%n",
                Runtime.version().feature(), args.n(), args.seed(), args.rate(), counts.size(), rows, views,
                runNanos / 1e9, args.n() * 1e9 / runNanos);
    }
}
