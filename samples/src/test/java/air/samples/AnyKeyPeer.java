package air.samples;

import air.dsl.Aggregations;
import air.dsl.Pipeline;
import air.dsl.Sinks;
import air.dsl.Sources;
import air.dsl.Stage;
import air.dsl.Windows;
import air.runtime.Cluster;
import air.runtime.JobConfig;
import air.runtime.api.AggregateOp;
import air.runtime.api.ProcessContext;
import air.runtime.api.StateDescriptor;
import air.runtime.api.ValueState;
import air.runtime.api.WindowResult;
import air.runtime.sink.CollectSink;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.LongStream;

/**
 * One peer of {@link AnyKeyPeersIT}: a job keyed by an enum and by a record holding that enum, with
 * no codec anywhere (keys, records, accumulators and process state all go through the serializer),
 * run on every peer of the cluster it joins. It prints what this peer's workers produced, one line
 * per key: a process function's running counts per key ({@code PROCESS enum|record KEY outputs=N
 * max=M distinct=D}) and per (window, key) the sum of a window aggregation ({@code WINDOW START KEY
 * SUM}). Routed by a stable hash, every key's records meet on one worker, so a key is printed by one
 * peer only with {@code outputs = max = distinct =} its record count; routed by {@code Object.hashCode}
 * (an enum's identity hash differs between JVMs) a key's records would split between owners.
 */
public final class AnyKeyPeer {

    /** Eight constants, so that the chance of an identity hash routing every one the same on two JVMs is nil. */
    enum Sign { ARIES, TAURUS, GEMINI, CANCER, LEO, VIRGO, LIBRA, SCORPIO }

    /** A record key holding the enum: 40 keys. */
    record Shade(Sign sign, int level) { }

    /** The records: no codec, so they cross the peers through the serializer. */
    record Reading(Sign sign, int level, long time, long value) { }

    /** An accumulator without a codec. */
    static final class Sum {
        long total;
    }

    static final int N = 20_000;
    static final long WINDOW_MS = 1_000;

    private AnyKeyPeer() {
    }

    static Reading reading(long i) {
        return new Reading(Sign.values()[(int) ((i * 7 + i / 13) % 8)], (int) (i % 5), i, i % 11);
    }

    static List<Reading> readings() {
        return LongStream.range(0, N).mapToObj(AnyKeyPeer::reading).toList();
    }

    public static void main(String[] args) {
        try (Cluster cluster = Cluster.join(args)) {
            StringBuilder identity = new StringBuilder("IDENTITY");
            for (Sign s : Sign.values()) {
                identity.append(' ').append(s).append('=').append(Integer.toHexString(System.identityHashCode(s)));
            }
            System.out.println(identity);
            for (String line : run(cluster)) {
                System.out.println(line);
            }
        }
    }

    private static AggregateOp<Reading, Sum, Long> sum() {
        return Aggregations.of("sum", Sum::new, (a, r) -> a.total += r.value(), (a, b) -> a.total += b.total, a -> a.total);
    }

    /** This peer's lines; {@code cluster} null runs the job on this JVM alone. */
    static List<String> run(Cluster cluster) {
        StateDescriptor<ValueState<Long>> signCount = StateDescriptor.value("sign-count");
        StateDescriptor<ValueState<Long>> shadeCount = StateDescriptor.value("shade-count");
        Pipeline p = Pipeline.create();
        Stage<Reading> in = p.readFrom(Sources.fromList(readings())).withTimestamps(Reading::time, 0);
        CollectSink<String> bySign = Sinks.collect();
        in.keyBy(Reading::sign, Sign.class).process((Reading r, ProcessContext<Sign, String> ctx) -> {
            Long n = ctx.state(signCount).value();
            long next = n == null ? 1 : n + 1;
            ctx.state(signCount).update(next);
            ctx.emit(ctx.key() + " " + next);
        }, signCount).writeTo(bySign);
        CollectSink<String> byShade = Sinks.collect();
        in.keyBy(r -> new Shade(r.sign(), r.level()), Shade.class).process((Reading r, ProcessContext<Shade, String> ctx) -> {
            Long n = ctx.state(shadeCount).value();
            long next = n == null ? 1 : n + 1;
            ctx.state(shadeCount).update(next);
            ctx.emit(ctx.key() + " " + next);
        }, shadeCount).writeTo(byShade);
        CollectSink<WindowResult<Shade, Long>> windows = Sinks.collect();
        in.keyBy(r -> new Shade(r.sign(), r.level()), Shade.class).window(Windows.tumbling(WINDOW_MS)).aggregate(sum()).writeTo(windows);
        p.execute(JobConfig.defaults().name("any-key").workers(2).cluster(cluster));
        List<String> lines = new ArrayList<>();
        lines.addAll(counts("enum", bySign.items()));
        lines.addAll(counts("record", byShade.items()));
        for (WindowResult<Shade, Long> w : windows.items()) {
            lines.add("WINDOW " + w.start() + " " + name(w.key()) + " " + w.value());
        }
        return lines;
    }

    /** A key as one word: a record's {@code toString} without its spaces. */
    static String name(Object key) {
        return key.toString().replace(" ", "");
    }

    /** Per key of the {@code "KEY COUNT"} outputs: how many, the highest count and how many distinct counts. */
    private static List<String> counts(String kind, List<String> outputs) {
        Map<String, TreeSet<Long>> distinct = new TreeMap<>();
        Map<String, Long> seen = new TreeMap<>();
        for (String o : outputs) {
            int space = o.lastIndexOf(' ');
            String key = o.substring(0, space).replace(" ", "");
            distinct.computeIfAbsent(key, k -> new TreeSet<>()).add(Long.parseLong(o.substring(space + 1)));
            seen.merge(key, 1L, Long::sum);
        }
        List<String> lines = new ArrayList<>();
        distinct.forEach((key, counts) -> lines.add("PROCESS " + kind + " " + key + " outputs=" + seen.get(key)
                + " max=" + counts.last() + " distinct=" + counts.size()));
        return lines;
    }
}
