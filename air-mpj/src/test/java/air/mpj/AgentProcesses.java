package air.mpj;

import air.channels.bootstrap.PeerEnvironment;
import air.channels.bootstrap.QuietMpjHome;
import air.channels.bootstrap.Rendezvous;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One JVM per MPJ rank for the transport contract: what the local launcher ({@code air.launcher},
 * which sits above this module) does, cut down to starting the ranks, serving their rendezvous on
 * loopback and ending them.
 */
final class AgentProcesses implements AutoCloseable {

    private final Rendezvous rendezvous;
    private final Path mpjHome;
    private final List<Process> processes = new ArrayList<>();

    private AgentProcesses(Rendezvous rendezvous, Path mpjHome) {
        this.rendezvous = rendezvous;
        this.mpjHome = mpjHome;
    }

    static AgentProcesses start(int peers, String mainClass, List<String> args, List<String> jvmOptions) throws IOException {
        AgentProcesses all = new AgentProcesses(Rendezvous.onLoopback(peers), QuietMpjHome.create());
        all.rendezvous.serveInBackground(120_000, e -> System.err.println("rendezvous: " + e.getMessage()));
        try {
            for (int rank = 0; rank < peers; rank++) {
                List<String> cmd = new ArrayList<>();
                cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
                cmd.addAll(jvmOptions);
                cmd.add("-cp");
                cmd.add(System.getProperty("java.class.path"));
                cmd.add(mainClass);
                cmd.addAll(args);
                ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.INHERIT);
                pb.environment().putAll(PeerEnvironment.variables(rank, peers, "127.0.0.1", all.rendezvous.port()));
                pb.environment().put("MPJ_HOME", all.mpjHome.toString());
                all.processes.add(pb.start());
            }
        } catch (IOException | RuntimeException e) {
            all.close();
            throw e;
        }
        return all;
    }

    int peers() {
        return processes.size();
    }

    Process process(int rank) {
        return processes.get(rank);
    }

    /** Waits up to {@code timeoutMs} for every rank to exit; kills those still running then. */
    void await(long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        for (Process p : processes) {
            if (!p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                p.destroyForcibly().waitFor();
            }
        }
    }

    @Override
    public void close() throws IOException {
        for (Process p : processes) {
            p.destroyForcibly();
        }
        for (Process p : processes) {
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        rendezvous.close();
        QuietMpjHome.delete(mpjHome);
    }
}
