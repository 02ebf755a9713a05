package air.samples.ysb;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HPC way: an MPJ daemon on this machine (started here, on free ports, with a private
 * MPJ_HOME from tools/mpj-home.sh) and {@code mpjrun -np 2 -dev niodev} starting two YSB peers.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class YsbMpjrunIT {

    private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();

    @Test
    void ysb_through_mpjrun_and_a_daemon_matches_the_reference(@TempDir Path dir) throws Exception {
        int port = freePortTriple();
        Path home = dir.resolve("mpj-home");
        run(List.of("bash", ROOT.resolve("tools/mpj-home.sh").toString(), home.toString(), Integer.toString(port)), dir, 60);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder daemonPb = new ProcessBuilder(java, "-cp", home.resolve("lib/daemon.jar").toString(),
                "runtime.daemon.MPJDaemon", Integer.toString(port)).redirectErrorStream(true)
                .redirectOutput(dir.resolve("daemon.log").toFile()).directory(dir.toFile());
        daemonPb.environment().put("MPJ_HOME", home.toString());
        daemonPb.environment().put("PATH", Path.of(System.getProperty("java.home"), "bin") + ":" + System.getenv("PATH"));
        Process daemon = daemonPb.start();
        List<ProcessHandle> started = new ArrayList<>();
        try {
            awaitListening(port, daemon);
            Path out = dir.resolve("ysb.csv");
            String classpath = System.getProperty("java.class.path");
            ProcessBuilder mpjrun = new ProcessBuilder(java, "-jar", home.resolve("lib/starter.jar").toString(), "-np", "2",
                    "-dev", "niodev", "-machinesfile", home.resolve("machines").toString(), "-cp", classpath,
                    YsbMain.class.getName(), "5M", "1", "--routing", "AIR", "--progress", "hewmeld", "--quiet", "--out", out.toString())
                    .redirectErrorStream(true).directory(dir.toFile());
            mpjrun.environment().put("MPJ_HOME", home.toString());
            Process p = mpjrun.start();
            String log = new String(p.getInputStream().readAllBytes());
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
            daemon.descendants().forEach(started::add);
            assertThat(log).contains("sha256=918c079abd661bab8445c17beef6f9bfdec2492356713c80f4c1895a67855871")
                    .contains("peers=2").contains("checksum matches the reference");
        } finally {
            daemon.descendants().forEach(started::add);
            started.forEach(ProcessHandle::destroyForcibly);
            daemon.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(daemon.isAlive()).isFalse();
        for (ProcessHandle h : started) {
            h.onExit().get(10, TimeUnit.SECONDS);
            assertThat(h.isAlive()).isFalse();
        }
    }

    /** A port p with p+1 and p+2 free too (daemon, port manager, mpjrun's server). */
    private static int freePortTriple() throws IOException {
        for (int attempt = 0; attempt < 50; attempt++) {
            int p;
            try (ServerSocket s = new ServerSocket(0)) {
                p = s.getLocalPort();
            }
            if (p + 2 < 65536 && free(p + 1) && free(p + 2)) {
                return p;
            }
        }
        throw new IOException("no three consecutive free ports");
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Waits until the daemon accepts connections (its log says nothing when it is ready). */
    private static void awaitListening(int port, Process daemon) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            assertThat(daemon.isAlive()).as("MPJ daemon exited early").isTrue();
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                return;
            } catch (IOException notYet) {
                daemon.waitFor(50, TimeUnit.MILLISECONDS); // polls a port: no test logic depends on the wait
            }
        }
        throw new AssertionError("the MPJ daemon did not listen on port " + port + " within 30 s");
    }

    private static void run(List<String> cmd, Path dir, int seconds) throws Exception {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(seconds, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(Files.exists(dir)).isTrue();
    }
}
