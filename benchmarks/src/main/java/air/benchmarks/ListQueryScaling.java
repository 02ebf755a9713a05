package air.benchmarks;

import air.dsl.Aggregations;
import air.dsl.Pipeline;
import air.dsl.Sinks;
import air.dsl.Sources;
import air.dsl.Windows;
import air.runtime.JobConfig;
import air.runtime.api.SourceFactory;
import air.runtime.api.WindowResult;
import air.runtime.plan.Routing;
import air.runtime.sink.CollectSink;
import air.runtime.source.GeneratorSource;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Nexmark-style queries over an application's batch (issue 31, item 1): {@code N} bids built in
 * memory before the clock starts and handed to the job with {@code Sources.fromList}, then one
 * query at {@code P} workers. {@code ListQueryScaling N P QUERY [SOURCE]} prints a RESULT line
 * (run_s from submission to the job's end) with the number of result rows and a digest of them
 * sorted, so that runs at different P and from different sources can be checked against each
 * other. Queries: {@code q7} (the highest bid per 10 s tumbling window, unkeyed), {@code q5} (bids
 * per auction per 10 s window sliding by 2 s), {@code count} (bids per auction per 10 s tumbling
 * window). Sources: {@code list} ({@code Sources.fromList}), {@code list-stride} (the same list
 * split as {@code fromList} split it before, index by index) and {@code generated} (the bids
 * computed from their index, nothing read from memory; other bids, so another digest). A fifth
 * argument chooses the windows' routing ({@code air} or {@code key}; the job's default otherwise).
 */
public final class ListQueryScaling {

    /** One bid: 10 000 auctions, 100 000 bidders, a price, 100 000 bids per second of event time. */
    public record Bid(long auction, long bidder, long price, long dateTime) {
    }

    private ListQueryScaling() {
    }

    public static void main(String[] argv) throws NoSuchAlgorithmException {
        if (argv.length < 3) {
            System.err.println("usage: ListQueryScaling N P q7|q5|count [list|list-stride|generated [air|key]]");
            System.exit(2);
        }
        long n = count(argv[0]);
        int p = Integer.parseInt(argv[1]);
        String query = argv[2];
        String source = argv.length > 3 ? argv[3] : "list";
        Routing routing = argv.length > 4 ? Routing.valueOf(argv[4].toUpperCase(Locale.ROOT)) : JobConfig.defaults().routing();
        long seed = 42;
        List<Bid> bids = source.equals("generated") ? List.of() : bids((int) n, seed);
        CollectSink<WindowResult<Long, Long>> sink = Sinks.collect();
        Pipeline pipeline = Pipeline.create();
        SourceFactory<Bid> input = switch (source) {
            case "list" -> Sources.fromList(bids);
            // the list as fromList split it before (single indices dealt out in turn): each instance walks all the list's memory
            case "list-stride" -> new GeneratorSource<>("list", bids.size(), i -> bids.get((int) i));
            case "generated" -> Sources.generate(n, ListQueryScaling::bidAt);
            default -> throw new IllegalArgumentException("source must be list, list-stride or generated, was " + source);
        };
        var timed = pipeline.readFrom(input).withTimestamps(Bid::dateTime, 0);
        switch (query) {
            case "q7" -> timed.keyByLong(b -> 0L).window(Windows.tumbling(10_000)).aggregate(Aggregations.max(Bid::price)).writeTo(sink);
            case "q5" -> timed.keyByLong(Bid::auction).window(Windows.sliding(10_000, 2_000)).aggregate(Aggregations.count())
                    .writeTo(sink);
            case "count" -> timed.keyByLong(Bid::auction).window(Windows.tumbling(10_000)).aggregate(Aggregations.count())
                    .writeTo(sink);
            default -> {
                System.err.println("unknown query '" + query + "': q7, q5 or count");
                System.exit(2);
            }
        }
        long start = System.nanoTime();
        pipeline.execute(JobConfig.defaults().name("list-" + query).workers(p).routing(routing));
        double s = (System.nanoTime() - start) / 1e9;
        List<String> rows = new ArrayList<>();
        for (WindowResult<Long, Long> r : sink.items()) {
            rows.add(r.start() + "," + r.key() + "," + r.value());
        }
        rows.sort(null);
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        rows.forEach(r -> sha.update((r + "\n").getBytes(StandardCharsets.UTF_8)));
        System.out.printf(Locale.ROOT, "RESULT engine=air-jvm source=%s query=%s routing=%s p=%d n=%d rows=%d sha256=%s"
                + " run_s=%.3f throughput_eps=%.0f%n", source, query, routing, p, n, rows.size(),
                HexFormat.of().formatHex(sha.digest()).substring(0, 16), s, n / s);
    }

    /** {@code 10M} -> 10 000 000. */
    static long count(String text) {
        char unit = Character.toUpperCase(text.charAt(text.length() - 1));
        long scale = unit == 'K' ? 1_000 : unit == 'M' ? 1_000_000 : 1;
        return Long.parseLong(scale == 1 ? text : text.substring(0, text.length() - 1)) * scale;
    }

    /** A bid computed from its index alone. */
    static Bid bidAt(long i) {
        long h = i * 0x9E3779B97F4A7C15L;
        h ^= h >>> 29;
        return new Bid(Math.floorMod(h, 10_000), Math.floorMod(h >>> 7, 100_000), 1 + Math.floorMod(h >>> 17, 1_000_000), i / 100L);
    }

    /** {@code n} seeded bids, allocated in list order (as an application that builds a list does). */
    static List<Bid> bids(int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Bid> bids = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            bids.add(new Bid(random.nextLong(10_000), random.nextLong(100_000), 1 + random.nextLong(1_000_000), i / 100L));
        }
        return bids;
    }
}
