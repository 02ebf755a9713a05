package air.samples.ysb;

import air.launcher.ExitCodes;
import air.launcher.LocalCluster;
import air.launcher.OutputCheck;
import air.launcher.RestartSupervisor;
import java.io.IOException;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * {@code --peers K --checkpoints DIR [--kill N]}: the launcher's {@link RestartSupervisor} over a
 * local cluster of YSB peers, which restarts every peer from the newest checkpoint when one dies
 * (or is killed), with the YSB output check plugged in: after a run with kills it prints
 * {@code CHECK lost=.. dup=.. kills=.. recovery_p50_ms=..} and fails when output was lost or
 * duplicated or fewer kills landed than asked.
 */
final class YsbSupervisor {

    private YsbSupervisor() {
    }

    static int run(YsbArgs args, LocalCluster.Spec spec) throws IOException, InterruptedException {
        return run(args, spec, UnaryOperator.identity());
    }

    /** The same, with the supervisor's options adjusted (pauses instead of kills). */
    static int run(YsbArgs args, LocalCluster.Spec spec, UnaryOperator<RestartSupervisor.Options> adjust) throws IOException,
            InterruptedException {
        YsbFaults faults = args.faults();
        RestartSupervisor.Options options = adjust.apply(RestartSupervisor.Options.of(args.peers(), faults.kills(), faults.killSeed(),
                        faults.checkpoints().toString())
                .withJob(YsbRun.JOB).withMaxRestarts(faults.maxRestarts())
                // a wrong result or bad arguments: a restart would not help; stopped at a savepoint: as asked
                .withFinalExitCodes(Set.of(ExitCodes.CHECK_FAILED, ExitCodes.USAGE, ExitCodes.STOPPED))
                .withKillAfterACheckpoint()); // every kill tests a recovery from a checkpoint, however slow the first one is
        return RestartSupervisor.run(LocalCluster.starter(spec), options, () -> outcome(args), spec.output());
    }

    /** The YSB output check, as the launcher's supervisors print it. */
    static OutputCheck.Outcome outcome(YsbArgs args) {
        YsbOutputCheck.Outcome o = YsbOutputCheck.check(args.out(), args);
        return new OutputCheck.Outcome(o.lost(), o.duplicated(), o.rows());
    }
}
