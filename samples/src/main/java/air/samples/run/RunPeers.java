package air.samples.run;

import air.launcher.ExitCodes;
import air.launcher.LocalCluster;
import air.runtime.JvmFlags;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ./air run JAR MAIN --peers K [ARGS...]}: a user's own job as K peer JVMs on this machine,
 * each started with this JVM's class path (the user's jar and AIR) and the recommended JIT flags;
 * the peers find each other through the environment the local launcher sets ({@code Cluster.join}).
 * The exit status is the run's ({@link ExitCodes}).
 */
@Command(name = "run", mixinStandardHelpOptions = true, usageHelpWidth = 120,
        description = "Runs MAIN as K peer JVMs on this machine (the local cluster); their output is printed prefixed [peer r].")
public final class RunPeers implements Callable<Integer> {

    private static final long DAY_MS = 24L * 3600 * 1000;

    @Option(names = "--peers", paramLabel = "K", required = true, description = "peer JVMs, 1..256")
    int peers;

    @Option(names = "--transport", paramLabel = "mpj|tcp", description = "MPJ Express niodev (default) or AIR's TCP transport")
    String transport = "mpj";

    @Parameters(index = "0", paramLabel = "MAIN", description = "the main class of the job")
    String mainClass;

    @Parameters(index = "1..*", paramLabel = "ARGS", description = "the job's own arguments")
    List<String> args = List.of();

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (peers < 1 || peers > 256) {
            throw new CommandLine.ParameterException(new CommandLine(this), "Invalid value for option '--peers': must be in [1, 256], got "
                    + peers);
        }
        if (!transport.equals("mpj") && !transport.equals("tcp")) {
            throw new CommandLine.ParameterException(new CommandLine(this), "Invalid value for option '--transport': must be mpj or tcp, got '"
                    + transport + "'");
        }
        LocalCluster.Spec spec = LocalCluster.Spec.of(peers, mainClass, args).withJvmOptions(JvmFlags.recommended());
        if (transport.equals("tcp")) {
            spec = spec.withEnvironment(Map.of("AIR_TRANSPORT", "tcp"));
        }
        return LocalCluster.run(spec, DAY_MS);
    }

    public static void main(String[] argv) {
        CommandLine cl = new CommandLine(new RunPeers()).setStopAtPositional(true); // after MAIN, every argument is the job's
        cl.setParameterExceptionHandler((e, a) -> {
            System.err.println("air run: " + e.getMessage());
            System.err.println("air run: usage: ./air run JAR MAIN [--peers K [--transport mpj|tcp] | --srun K | --mpjrun K] [ARGS...]");
            return ExitCodes.USAGE;
        });
        cl.setExecutionExceptionHandler((e, c, r) -> {
            System.err.println("air run: the peers could not be started: " + e.getMessage());
            return ExitCodes.JOB_FAILED;
        });
        System.exit(cl.execute(argv));
    }
}
