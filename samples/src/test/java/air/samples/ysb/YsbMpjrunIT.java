package air.samples.ysb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import air.channels.MeshAuth;
import air.channels.bootstrap.PeerEnvironment;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The HPC way: an MPJ daemon on this machine (started here, on free ports, with a private
 * MPJ_HOME from tools/mpj-home.sh) and {@code mpjrun -np 2 -dev niodev} starting two YSB peers;
 * and across "hosts": an MPJ daemon in each of 2 or 4 network namespaces ({@link NamespaceHosts}),
 * a machines file naming their addresses, and {@code mpjrun} from this namespace (needs root;
 * skipped, saying why, where namespaces cannot be made).
 *
 * <p>Two things make MPJ Express 0.44 work across hosts that share this machine's name: mpjrun
 * tells the processes to call back at {@code InetAddress.getLocalHost().getHostName()} (its
 * {@code --server} argument), which on every namespace resolves to loopback, so the daemons run
 * with a hosts file ({@code -Djdk.net.hosts.file}) that resolves this machine's name to the
 * launcher's address on the hosts' network; and the daemons get {@code AIR_BIND=0.0.0.0} (their
 * processes inherit it), so that AIR's liveness mesh listens on the namespace's own address, not
 * on loopback (under mpjrun there is no rendezvous: a peer advertises its first site address), with
 * the run's secret in a file named by {@code -Dair.secret.file}, as {@code ./air mpjrun} passes it.
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
            awaitListening(InetAddress.getLoopbackAddress().getHostAddress(), port, daemon);
            Path out = dir.resolve("ysb.csv");
            String classpath = System.getProperty("java.class.path");
            ProcessBuilder mpjrun = new ProcessBuilder(java, "-jar", home.resolve("lib/starter.jar").toString(), "-np", "2",
                    "-dev", "niodev", "-machinesfile", home.resolve("machines").toString(), "-cp", classpath, secretFileOption(dir),
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

    @ParameterizedTest(name = "{0} namespace hosts")
    @ValueSource(ints = {2, 4})
    void ysb_through_mpjrun_and_a_daemon_per_namespace_host_matches_the_reference(int hosts, @TempDir Path dir) throws Exception {
        String why = NamespaceHosts.unavailable();
        assumeTrue(why == null, () -> "mpjrun across namespace hosts skipped: " + why);
        int port = freePortTriple(); // mpjrun's own server listens here on port + 2; each daemon on port in its namespace
        Path home = dir.resolve("mpj-home");
        run(List.of("bash", ROOT.resolve("tools/mpj-home.sh").toString(), home.toString(), Integer.toString(port)), dir, 60);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<Process> daemons = new ArrayList<>();
        List<ProcessHandle> started = new ArrayList<>();
        Process mpjrun = null;
        NamespaceHosts h = NamespaceHosts.withLauncher(hosts);
        Path log = dir.resolve("mpjrun.log");
        try (h) {
            Path names = dir.resolve("hosts");
            Files.writeString(names, "127.0.0.1 localhost\n" + h.launcherAddress().getHostAddress() + " "
                    + InetAddress.getLocalHost().getHostName() + "\n", StandardCharsets.UTF_8);
            StringBuilder machines = new StringBuilder();
            for (int i = 0; i < hosts; i++) {
                machines.append(h.address(i)).append('\n');
                ProcessBuilder pb = new ProcessBuilder(h.inside(i, List.of(java, "-cp", home.resolve("lib/daemon.jar").toString(),
                        "runtime.daemon.MPJDaemon", Integer.toString(port))))
                        .redirectErrorStream(true).redirectOutput(dir.resolve("daemon-" + i + ".log").toFile()).directory(dir.toFile());
                Map<String, String> env = pb.environment();
                env.put("MPJ_HOME", home.toString());
                env.put("PATH", Path.of(System.getProperty("java.home"), "bin") + ":" + System.getenv("PATH"));
                // the daemon and the processes it starts (which inherit its environment): this machine's name is the launcher's
                // address; AIR's sockets listen on the namespace's interface
                env.put("JAVA_TOOL_OPTIONS", "-Djdk.net.hosts.file=" + names);
                env.put(PeerEnvironment.BIND, "0.0.0.0");
                daemons.add(pb.start());
            }
            Path machinesFile = dir.resolve("machines");
            Files.writeString(machinesFile, machines, StandardCharsets.UTF_8);
            for (int i = 0; i < hosts; i++) {
                awaitListening(h.address(i), port, daemons.get(i));
            }
            ProcessBuilder pb = new ProcessBuilder(java, "-jar", home.resolve("lib/starter.jar").toString(), "-np", Integer.toString(hosts),
                    "-dev", "niodev", "-machinesfile", machinesFile.toString(), "-cp", System.getProperty("java.class.path"),
                    secretFileOption(dir), YsbMain.class.getName(), "5M", "1", "--routing", "AIR", "--progress", "hewmeld", "--quiet", "--out",
                    dir.resolve("ysb.csv").toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).directory(dir.toFile());
            pb.environment().put("MPJ_HOME", home.toString());
            mpjrun = pb.start();
            boolean ended = mpjrun.waitFor(120, TimeUnit.SECONDS);
            String said = Files.readString(log, StandardCharsets.UTF_8);
            assertThat(ended).as("mpjrun ended; it said:%n%s", said).isTrue();
            assertThat(said).contains("sha256=918c079abd661bab8445c17beef6f9bfdec2492356713c80f4c1895a67855871")
                    .contains("peers=" + hosts).contains("checksum matches the reference");
        } finally {
            if (mpjrun != null) {
                mpjrun.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            for (Process d : daemons) {
                d.descendants().forEach(started::add);
                started.forEach(ProcessHandle::destroyForcibly);
                d.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        assertThat(h.leftovers()).as("namespaces and links left behind").isEmpty();
        for (Process d : daemons) {
            assertThat(d.isAlive()).isFalse();
        }
        for (ProcessHandle p : started) {
            p.onExit().get(10, TimeUnit.SECONDS);
            assertThat(p.isAlive()).isFalse();
        }
    }

    /**
     * What {@code ./air mpjrun} passes: a fresh secret in a file only this user reads, named to the
     * peers by a JVM option before the class name (mpjrun hands those to the processes the daemons
     * start, which inherit the daemon's environment, not mpjrun's). Off loopback
     * ({@code AIR_BIND=0.0.0.0}) a peer refuses to start without a secret.
     */
    private static String secretFileOption(Path dir) throws IOException {
        Path file = dir.resolve("secret");
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, MeshAuth.randomSecret(), StandardCharsets.UTF_8);
        return "-D" + PeerEnvironment.SECRET_FILE_PROPERTY + "=" + file;
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

    @SuppressWarnings("try") // binding is the test: the socket is closed at once
    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port)) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** Waits until the daemon accepts connections (its log says nothing when it is ready). */
    private static void awaitListening(String host, int port, Process daemon) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            assertThat(daemon.isAlive()).as("MPJ daemon exited early").isTrue();
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(host, port), 1_000);
                return;
            } catch (IOException notYet) {
                daemon.waitFor(50, TimeUnit.MILLISECONDS); // polls a port: no test logic depends on the wait
            }
        }
        throw new AssertionError("the MPJ daemon did not listen on " + host + ":" + port + " within 30 s");
    }

    private static void run(List<String> cmd, Path dir, int seconds) throws Exception {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(seconds, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(Files.exists(dir)).isTrue();
    }
}
