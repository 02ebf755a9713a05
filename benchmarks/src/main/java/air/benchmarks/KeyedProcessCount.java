package air.benchmarks;

import air.dsl.Aggregations;
import air.dsl.KeyedStage;
import air.dsl.Pipeline;
import air.dsl.Sinks;
import air.dsl.Windows;
import air.runtime.JobConfig;
import air.runtime.api.WindowResult;
import air.runtime.sink.CollectSink;
import air.samples.ysb.ProcessQuery;
import air.samples.ysb.YsbArgs;
import air.samples.ysb.YsbQuery.AdView;
import air.samples.ysb.YsbQuery.CampaignView;
import air.samples.ysb.YsbReference;
import air.workloads.ysb.YsbEvent;
import air.workloads.ysb.YsbGenerator;
import air.workloads.ysb.YsbSources;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.eclipse.collections.impl.map.mutable.primitive.LongLongHashMap;
import org.eclipse.collections.impl.map.mutable.primitive.LongObjectHashMap;

/**
 * The API cost of the general path (issue 14 item 7): YSB-mem (YSB-SPEC 6: views joined to their
 * campaign, counted per campaign and 10 s window) with the count written two ways over the same
 * events, the same chain up to {@code keyByLong(campaign)}: {@code --api window}, the built-in
 * {@code window(tumbling(10 s)).aggregate(count())}, and {@code --api process}, a keyed process
 * function that keeps per campaign a map window start -> count ({@code MapState}, codecs given) and
 * registers an event-time timer at the window's end when it opens one, emitting the count when it
 * fires. {@code KeyedProcessCount N [P] [--api window|process] [--seed S] [--rate R] [--out FILE]}
 * prints a RESULT line (engine=air, its api, run_s from submission to the job's end), writes the
 * canonical output (YSB-SPEC 6.1) untimed and checks it against the reference where YSB-SPEC 6.3
 * has one for N (exit 1 on a mismatch or a (window, campaign) emitted twice); otherwise the
 * benchmark script compares the file with {@link YsbLoop}'s.
 */
public final class KeyedProcessCount {

    private KeyedProcessCount() {
    }

    public static void main(String[] argv) throws IOException {
        String api = "process";
        List<String> rest = new ArrayList<>();
        for (int i = 0; i < argv.length; i++) {
            if (argv[i].equals("--api") && i + 1 < argv.length) {
                api = argv[++i];
            } else {
                rest.add(argv[i]);
            }
        }
        if (!api.equals("process") && !api.equals("window")) {
            System.err.println("keyed-process-count: --api must be process or window, was '" + api + "'");
            System.exit(2);
            return;
        }
        System.exit(run(YsbArgs.parse(rest.toArray(String[]::new)), api, System.out, System.err));
    }

    static int run(YsbArgs args, String api, PrintStream out, PrintStream err) throws IOException {
        YsbGenerator generator = new YsbGenerator(args.seed(), args.rate());
        LongLongHashMap campaignOfAd = generator.adToCampaign();
        CollectSink<WindowResult<Long, Long>> sink = Sinks.collect();
        Pipeline pipeline = Pipeline.create();
        KeyedStage<Long, CampaignView> keyed = pipeline.readFrom(YsbSources.mem(args.n(), generator))
                .withTimestamps(YsbEvent::eventTime, 0)
                .filter(e -> e.eventType() == YsbEvent.VIEW)
                .map(e -> new AdView(e.adId(), e.eventTime()))
                .map(v -> new CampaignView(campaignOfAd.getOrThrow(v.adId()), v.eventTime()))
                .keyByLong(CampaignView::campaignId);
        if (api.equals("window")) {
            keyed.window(Windows.tumbling(YsbGenerator.WINDOW_MS)).aggregate(Aggregations.count()).writeTo(sink);
        } else {
            keyed.process(new ProcessQuery.CountPerWindow(), ProcessQuery.COUNTS).writeTo(sink); // the sample's function
        }
        JobConfig config = JobConfig.defaults().name("keyed-count-" + api).workers(args.parallelism()).batchSize(args.batch())
                .routing(args.routing()).progress(args.progress()).watermarkIntervalMs(args.watermarkMs());
        long start = System.nanoTime();
        pipeline.execute(config);
        long runNanos = System.nanoTime() - start;

        LongObjectHashMap<LongLongHashMap> counts = new LongObjectHashMap<>();
        long views = 0;
        long twice = 0;
        for (WindowResult<Long, Long> r : sink.items()) {
            LongLongHashMap perCampaign = counts.getIfAbsentPut(r.start(), LongLongHashMap::new);
            if (perCampaign.containsKey(r.key())) {
                twice++;
            }
            perCampaign.addToValue(r.key(), r.value());
            views += r.value();
        }
        String sha = YsbLoop.writeCanonical(counts, args.out());
        out.printf(Locale.ROOT, "RESULT engine=air api=%s p=%d java=%d mode=throughput n=%d seed=%d rate=%d offered=0 windows=%d rows=%d"
                        + " views=%d sha256=%s run_s=%.3f throughput_eps=%.0f%n",
                api, args.parallelism(), Runtime.version().feature(), args.n(), args.seed(), args.rate(), counts.size(),
                counts.sumOfInt(LongLongHashMap::size), views, sha, runNanos / 1e9, args.n() * 1e9 / runNanos);
        if (twice > 0) {
            err.println("ysb: MISMATCH: " + twice + " (window, campaign) results emitted more than once");
            return 1;
        }
        String reference = YsbReference.sha256(args);
        if (reference == null) {
            err.println("ysb: no reference checksum for these parameters; output written to " + args.out());
            return 0;
        }
        if (reference.equals(sha)) {
            err.println("ysb: checksum matches the reference (YSB-SPEC 6.3)");
            return 0;
        }
        err.println("ysb: MISMATCH: checksum " + sha + " differs from the reference " + reference);
        return 1;
    }
}
