package air.samples.ysb;

import air.launcher.Quantiles;
import air.runtime.plan.Progress;
import air.workloads.ysb.YsbGenerator;
import com.sun.management.OperatingSystemMXBean;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Locale;
import java.util.stream.LongStream;

/** The RESULT and LATENCY lines of YSB-SPEC section 8, and the check against the reference. */
public final class YsbReport {

    public static final String ENGINE = "air-jvm";

    private YsbReport() {
    }

    public static String resultLine(YsbRun.Outcome o, String sha) {
        YsbArgs a = o.args();
        return String.format(Locale.ROOT,
                "RESULT engine=%s p=%d java=%s mode=%s n=%d seed=%d rate=%d offered=%d windows=%d rows=%d views=%d sha256=%s"
                        + " run_s=%.3f job_s=%.3f throughput_eps=%.0f batch=%d routing=%s progress=%s peers=%d jvm_flags=%s",
                ENGINE, a.parallelism(), Runtime.version().feature(), a.offered() > 0 ? "latency" : "throughput", a.n(),
                a.seed(), a.rate(), a.offered(), o.rows().windows(), o.rows().size(), o.rows().views(), sha,
                o.runNanos() / 1e9, o.jobNanos() / 1e9, o.throughput(), a.batch(), a.routing(), a.progress() == Progress.HEWMELD
                        ? "hewmeld" : "watermark-" + a.watermarkMs() + "ms", a.peers(), jvmFlags())
                + (a.query() == YsbArgs.Query.SESSIONS ? " gap_ms=" + a.gapMs() : "")
                + (o.cpuNanos() > 0 ? String.format(Locale.ROOT, " cpu_s=%.3f", o.cpuNanos() / 1e9) : "");
    }

    /**
     * The CPU time this JVM's threads have used so far (the engine's, the JIT's and the collector's),
     * in nanoseconds: a run's CPU cost beside its wall time, which on a machine with fewer cores than
     * busy threads is what its throughput is made of.
     */
    public static long processCpuNanos() {
        return ManagementFactory.getPlatformMXBean(OperatingSystemMXBean.class).getProcessCpuTime();
    }

    /** The JVM's non-default flags, comma-separated without spaces (YSB-SPEC 7 asks for them). */
    static String jvmFlags() {
        List<String> flags = ManagementFactory.getRuntimeMXBean().getInputArguments();
        return flags.isEmpty() ? "none" : String.join(",", flags).replace(' ', '_');
    }

    /** Window-result latency over all windows but the first and the last (YSB-SPEC 7.2). */
    public static String latencyLine(YsbRun.Outcome o) {
        YsbRows rows = o.rows();
        long firstWindow = YsbGenerator.T0;
        long lastWindow = YsbGenerator.T0 + (o.rows().windows() - 1) * YsbGenerator.WINDOW_MS;
        // latency of a row: its emission after its window's scheduled end (never negative: a window fires after an event at or past its end)
        Quantiles latencies = Quantiles.of(LongStream.range(0, rows.size())
                .filter(i -> rows.windowStart[(int) i] != firstWindow && rows.windowStart[(int) i] != lastWindow)
                .map(i -> {
                    long windowEndNanos = o.scheduleStartNanos()
                            + (rows.windowStart[(int) i] + YsbGenerator.WINDOW_MS - YsbGenerator.T0) * 1_000_000L;
                    return Math.max(0, rows.emitNanos[(int) i] - windowEndNanos) / 1_000; // microseconds: exact to 131 ms
                }).toArray());
        boolean none = latencies.count() == 0;
        return String.format(Locale.ROOT, "LATENCY engine=%s p=%d offered=%d rows=%d p50_ms=%.3f p99_ms=%.3f max_ms=%.3f min_ms=%.3f",
                ENGINE, o.args().parallelism(), o.args().offered(), latencies.count(),
                none ? Double.NaN : latencies.at(0.50) / 1e3, none ? Double.NaN : latencies.at(0.99) / 1e3,
                none ? Double.NaN : Double.parseDouble(latencies.max()) / 1e3, none ? Double.NaN : latencies.min() / 1e3);
    }

    /** Checks the total against the generator and the checksum against the reference; prints why not. */
    public static boolean verify(YsbRun.Outcome o, String sha, PrintStream err) {
        YsbArgs a = o.args();
        if (a.query() == YsbArgs.Query.USERS) {
            boolean ok = o.rows().views() == a.n();
            err.printf(Locale.ROOT, "ysb: users query: %d rows (keys per window), counts sum to %d of %d events%s%n", o.rows().size(),
                    o.rows().views(), a.n(), ok ? "" : ": MISMATCH");
            return ok;
        }
        if (a.query() != YsbArgs.Query.YSB && a.query() != YsbArgs.Query.PROCESS) {
            return verifyAgainstLoop(o, sha, err);
        }
        YsbGenerator generator = new YsbGenerator(a.seed(), a.rate());
        long expectedViews = LongStream.range(0, a.n()).parallel().filter(generator::isView).count();
        boolean ok = true;
        if (expectedViews != o.rows().views()) {
            err.printf(Locale.ROOT, "ysb: MISMATCH: counts sum to %d but the generator has %d views%n", o.rows().views(), expectedViews);
            ok = false;
        }
        long expectedRows = generator.windows(a.n()) * YsbGenerator.CAMPAIGNS;
        if (a.rate() >= 100_000 && o.rows().size() != expectedRows) {
            err.printf(Locale.ROOT, "ysb: note: %d rows, %d expected for full windows%n", o.rows().size(), expectedRows);
        }
        String reference = YsbReference.sha256(a.n(), a.seed(), a.rate());
        if (reference == null) {
            err.println("ysb: no reference checksum for these parameters; total of views checked");
        } else if (reference.equals(sha)) {
            err.println("ysb: checksum matches the reference (YSB-SPEC 6.3)");
        } else {
            err.println("ysb: MISMATCH: checksum " + sha + " differs from the reference " + reference);
            ok = false;
        }
        return ok;
    }

    /**
     * YSBM, WA, the word count, the enrichment and the sessions: the canonical file just written against a plain
     * loop over the generator, row by row ({@link YsbOutputCheck}: nothing lost, nothing
     * duplicated, so byte for byte the loop's file), and the checksum against the spec's reference
     * where it lists one.
     */
    private static boolean verifyAgainstLoop(YsbRun.Outcome o, String sha, PrintStream err) {
        YsbArgs a = o.args();
        String query = a.query().cliName();
        boolean ok = true;
        try {
            YsbOutputCheck.Outcome c = YsbOutputCheck.check(a.out(), a);
            if (c.lost() != 0 || c.duplicated() != 0) {
                err.printf(Locale.ROOT, "ysb: %s: MISMATCH against the generator's loop: lost=%d dup=%d over %d rows%n", query, c.lost(),
                        c.duplicated(), c.rows());
                ok = false;
            }
        } catch (IllegalStateException e) {
            err.println("ysb: " + query + ": MISMATCH: " + e.getMessage());
            ok = false;
        }
        String reference = YsbReference.sha256(a);
        String section = switch (a.query()) {
            case YSBM -> "YSB-SPEC 9";
            case WA -> "YSB-SPEC 10";
            case SESSIONS -> "YSB-SPEC 11";
            default -> "docs/dataflows.md";
        };
        if (reference == null) {
            err.println("ysb: " + query + ": no reference checksum for these parameters; every row checked against the generator's loop");
        } else if (reference.equals(sha)) {
            err.println("ysb: " + query + ": checksum matches the reference (" + section + ")");
        } else {
            err.println("ysb: " + query + ": MISMATCH: checksum " + sha + " differs from the reference " + reference);
            ok = false;
        }
        return ok;
    }
}
