package air.samples.ysb;

import air.launcher.ExitCodes;
import air.runtime.CheckpointMismatchException;
import air.runtime.Cluster;
import air.runtime.PeerFencedException;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Locale;

/**
 * {@code ysb N [P] [options]}: runs YSB-mem embedded on this JVM, writes the canonical output,
 * prints the RESULT line (and LATENCY in latency mode) and checks the reference checksum.
 * Exit codes: 0 ok (and {@code --help}), 1 checksum or total mismatch, 2 bad arguments, 3 the job failed,
 * 6 stopped at a savepoint as asked ({@code --savepoint DIR --stop-after T}).
 */
public final class YsbMain {

    private YsbMain() {
    }

    public static void main(String[] argv) {
        System.exit(execute(argv));
    }

    /** The command: the exit code. */
    public static int execute(String... argv) {
        if (Cluster.startedAsPeer(argv)) {
            return runAsPeer(argv);
        }
        if (wantsHelp(argv)) {
            System.out.print(YsbArgs.usage());
            return 0;
        }
        YsbArgs args;
        try {
            args = YsbArgs.parse(argv);
        } catch (IllegalArgumentException e) {
            System.err.println("ysb: " + e.getMessage());
            System.err.println("ysb: usage: ysb N [P] [options]; './air ysb --help' lists them");
            return 2;
        }
        return args.peers() > 1 ? YsbPeers.launch(args, argv) : run(args);
    }

    /** {@code --help} or {@code -h} anywhere: the usage, exit 0. */
    static boolean wantsHelp(String... argv) {
        return YsbCommand.wantsHelp(argv);
    }

    /** Started by the local launcher, srun or mpjrun: joins the cluster and runs this peer's part. */
    private static int runAsPeer(String[] argv) {
        try (Cluster cluster = Cluster.join(argv)) {
            YsbArgs args;
            try {
                args = YsbArgs.parse(cluster.userArgs()).withPeers(cluster.peers());
            } catch (IllegalArgumentException e) {
                System.err.println("ysb: " + e.getMessage());
                return 2;
            }
            System.err.printf(Locale.ROOT, "ysb-mem: peer %d of %d: n=%d p=%d per peer, routing=%s progress=%s%n", cluster.self(),
                    cluster.peers(), args.n(), args.parallelism(), args.routing(), args.progress());
            return YsbPeers.runPeer(cluster, args);
        } catch (CheckpointMismatchException e) {
            System.err.println("ysb: " + e.getMessage());
            return 2;
        } catch (PeerFencedException e) {
            System.err.println("ysb: this peer stopped, fenced: " + e.getMessage());
            return ExitCodes.FENCED;
        } catch (RuntimeException e) {
            System.err.println("ysb: the job failed: " + e.getMessage());
            return 3;
        } catch (InterruptedException e) {
            System.err.println("ysb: interrupted");
            return 3;
        }
    }

    static int run(YsbArgs args) {
        System.err.printf(Locale.ROOT, "ysb-mem: n=%d p=%d seed=%d rate=%d offered=%d (%s mode)%n", args.n(), args.parallelism(),
                args.seed(), args.rate(), args.offered(), args.offered() > 0 ? "latency" : "throughput");
        YsbRun.Outcome outcome;
        try {
            outcome = YsbRun.run(args, args.quiet() ? null : System.err);
        } catch (CheckpointMismatchException e) {
            System.err.println("ysb: " + e.getMessage());
            return 2; // nothing ran: a choice for the user (--fresh, another directory), not a failure to retry
        } catch (RuntimeException e) {
            System.err.println("ysb: the job failed: " + e.getMessage());
            return 3;
        }
        return outcome.stopped() ? stopped(outcome, 0) : report(outcome);
    }

    /** Stopped at a savepoint as asked: says where and how to resume; {@link ExitCodes#STOPPED}. */
    static int stopped(YsbRun.Outcome outcome, int peer) {
        if (peer == 0) {
            System.out.printf(Locale.ROOT, "SAVEPOINT %d in %s: stopped after %.3f s; resume with --checkpoints %s (any --peers and P)%n",
                    outcome.savepoint(), outcome.args().faults().checkpoints(), outcome.jobNanos() / 1e9,
                    outcome.args().faults().checkpoints());
        }
        return ExitCodes.STOPPED;
    }

    /** Writes the canonical output, prints RESULT (and LATENCY) and checks the reference: the exit code. */
    static int report(YsbRun.Outcome outcome) {
        return report(outcome, System.out, System.err);
    }

    /** {@link #report(YsbRun.Outcome)} printing to {@code out} and {@code err}: 0 ok, 1 a mismatch, 3 the output not written. */
    static int report(YsbRun.Outcome outcome, PrintStream out, PrintStream err) {
        YsbArgs args = outcome.args();
        String sha;
        try {
            sha = outcome.rows().writeCanonical(args.out());
        } catch (IOException e) {
            err.println("ysb: cannot write " + args.out() + ": " + e.getMessage());
            return 3;
        }
        out.println(YsbReport.resultLine(outcome, sha));
        if (args.offered() > 0) {
            out.println(YsbReport.latencyLine(outcome));
        }
        return YsbReport.verify(outcome, sha, err) ? 0 : 1;
    }
}
