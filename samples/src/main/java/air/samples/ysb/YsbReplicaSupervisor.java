package air.samples.ysb;

import air.launcher.LocalCluster;
import air.launcher.ReplicaSupervisor;
import java.io.IOException;
import java.util.function.UnaryOperator;

/**
 * {@code --peers K --replicas R --kill N}: the launcher's {@link ReplicaSupervisor} over a local
 * cluster of YSB peers, which kills a random live peer N times and lets the survivors take its
 * share over, with the YSB output check plugged in ({@code CHECK lost=.. dup=.. kills=..
 * recovery_p50_ms=.. takeover_p50_ms=..}).
 */
final class YsbReplicaSupervisor {

    private YsbReplicaSupervisor() {
    }

    static int run(YsbArgs args, LocalCluster.Spec spec) throws IOException, InterruptedException {
        return run(args, spec, UnaryOperator.identity());
    }

    /** The same, with the supervisor's options adjusted (how a strike lands: a pause, several peers at once). */
    static int run(YsbArgs args, LocalCluster.Spec spec, UnaryOperator<ReplicaSupervisor.Options> adjust) throws IOException,
            InterruptedException {
        YsbFaults faults = args.faults();
        ReplicaSupervisor.Options options = adjust.apply(ReplicaSupervisor.Options.of(args.peers(), faults.replicas(), args.parallelism(),
                faults.kills(), faults.killSeed()).withJob(YsbRun.JOB));
        return ReplicaSupervisor.run(LocalCluster.starter(spec), options, () -> YsbSupervisor.outcome(args), spec.output());
    }
}
