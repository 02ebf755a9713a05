package air.samples.ysb;

import java.io.IOException;
import java.util.Locale;

/**
 * {@code ysb N [P] [options]}: runs YSB-mem embedded on this JVM, writes the canonical output,
 * prints the RESULT line (and LATENCY in latency mode) and checks the reference checksum.
 * Exit codes: 0 ok, 1 checksum or total mismatch, 2 bad arguments, 3 the job failed.
 */
public final class YsbMain {

    private YsbMain() {
    }

    public static void main(String[] argv) {
        YsbArgs args;
        try {
            args = YsbArgs.parse(argv);
        } catch (IllegalArgumentException e) {
            System.err.println("ysb: " + e.getMessage());
            System.err.println(YsbArgs.USAGE);
            System.exit(2);
            return;
        }
        System.exit(run(args));
    }

    static int run(YsbArgs args) {
        System.err.printf(Locale.ROOT, "ysb-mem: n=%d p=%d seed=%d rate=%d offered=%d (%s mode)%n", args.n(), args.parallelism(),
                args.seed(), args.rate(), args.offered(), args.offered() > 0 ? "latency" : "throughput");
        YsbRun.Outcome outcome;
        try {
            outcome = YsbRun.run(args, args.quiet() ? null : System.err);
        } catch (RuntimeException e) {
            System.err.println("ysb: the job failed: " + e.getMessage());
            return 3;
        }
        String sha;
        try {
            sha = outcome.rows().writeCanonical(args.out());
        } catch (IOException e) {
            System.err.println("ysb: cannot write " + args.out() + ": " + e.getMessage());
            return 3;
        }
        System.out.println(YsbReport.resultLine(outcome, sha));
        if (args.offered() > 0) {
            System.out.println(YsbReport.latencyLine(outcome));
        }
        return YsbReport.verify(outcome, sha, System.err) ? 0 : 1;
    }
}
