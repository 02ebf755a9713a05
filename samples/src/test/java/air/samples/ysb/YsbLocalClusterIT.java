package air.samples.ysb;

import static org.assertj.core.api.Assertions.assertThat;

import air.channels.bootstrap.PeerEnvironment;
import air.launcher.LocalCluster;
import air.runtime.JvmFlags;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** YSB-mem across peer JVMs over MPJ Express niodev, started by the local launcher. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class YsbLocalClusterIT {

    private static final String REFERENCE_5M = "918c079abd661bab8445c17beef6f9bfdec2492356713c80f4c1895a67855871";
    /** The sessions query's at 100K (YSB-SPEC 11: seed 42, rate 1000, gap 2000 ms). */
    private static final String SESSIONS_100K = "1f90dcb6017de672b30ae6cbbc1218644e7d0b225c09f7687a6b04e6aed3e5d8";
    private static final List<String> JVM = Stream.concat(Stream.of("-Xmx256m"), JvmFlags.recommended().stream()).toList();

    private static LocalCluster.Spec spec(int peers, List<String> out, String... args) {
        return LocalCluster.Spec.of(peers, YsbMain.class.getName(), List.of(args)).withJvmOptions(JVM).withOutput(line -> {
            synchronized (out) {
                out.add(line);
            }
        });
    }

    @ParameterizedTest(name = "peers={0} routing={1} progress={2}")
    @CsvSource({"2,AIR,hewmeld", "2,KEY,hewmeld", "2,KEY,watermark", "4,AIR,hewmeld", "4,KEY,watermark"})
    void ysb_over_mpj_peers_matches_the_reference(int peers, String routing, String progress, @TempDir Path dir) throws Exception {
        List<String> out = new ArrayList<>();
        try (LocalCluster cluster = LocalCluster.start(spec(peers, out, "5M", "1", "--routing", routing, "--progress", progress,
                "--out", dir.resolve("ysb.csv").toString(), "--quiet"))) {
            int[] codes = cluster.await(150_000);
            assertThat(codes).as(String.join("\n", out)).containsOnly(0);
            assertEnded(cluster);
        }
        assertThat(out).anyMatch(l -> l.startsWith("[peer 0] RESULT") && l.contains("sha256=" + REFERENCE_5M) && l.contains("peers=" + peers));
        assertThat(out).contains("[peer 0] ysb: checksum matches the reference (YSB-SPEC 6.3)");
    }

    @ParameterizedTest(name = "query={0} peers={1} routing={2} progress={3}")
    @CsvSource({"ysbm,2,AIR,hewmeld", "ysbm,4,KEY,watermark", "wa,2,KEY,hewmeld", "wa,4,AIR,watermark"})
    void ysbm_and_wa_over_mpj_peers_match_their_references(String query, int peers, String routing, String progress, @TempDir Path dir)
            throws Exception {
        List<String> out = new ArrayList<>();
        try (LocalCluster cluster = LocalCluster.start(spec(peers, out, "5M", "1", "--query", query, "--routing", routing,
                "--progress", progress, "--out", dir.resolve(query + ".csv").toString(), "--quiet"))) {
            int[] codes = cluster.await(150_000);
            assertThat(codes).as(String.join("\n", out)).containsOnly(0);
            assertEnded(cluster);
        }
        String section = query.equals("ysbm") ? "9" : "10";
        assertThat(out).as(String.join("\n", out)).contains("[peer 0] ysb: " + query + ": checksum matches the reference (YSB-SPEC "
                + section + ")");
    }

    @ParameterizedTest(name = "sessions transport={0} routing={1} progress={2}")
    @CsvSource({"mpj,KEY,watermark", "tcp,AIR,hewmeld"})
    void sessions_over_two_peers_match_the_reference(String transport, String routing, String progress, @TempDir Path dir)
            throws Exception {
        List<String> out = new ArrayList<>();
        LocalCluster.Spec spec = spec(2, out, "100K", "1", "--query", "sessions", "--routing", routing, "--progress", progress,
                "--out", dir.resolve("sessions.csv").toString(), "--quiet").withEnvironment(Map.of(PeerEnvironment.TRANSPORT, transport));
        try (LocalCluster cluster = LocalCluster.start(spec)) {
            int[] codes = cluster.await(60_000);
            assertThat(codes).as(String.join("\n", out)).containsOnly(0);
            assertEnded(cluster);
        }
        assertThat(out).as(String.join("\n", out)).anyMatch(l -> l.startsWith("[peer 0] RESULT") && l.contains("sha256=" + SESSIONS_100K)
                && l.contains("peers=2") && l.contains("rows=14190"));
        assertThat(out).contains("[peer 0] ysb: sessions: checksum matches the reference (YSB-SPEC 11)");
    }

    /** {@code ./air sessions 100K --peers 2} as a user runs it: YsbMain starts the 2 peer JVMs itself, here on TCP. */
    @Test
    void sessions_with_peers_2_starts_two_peer_jvms_and_matches_the_reference(@TempDir Path dir) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(JVM);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), YsbMain.class.getName(), "100K", "1", "--query", "sessions",
                "--peers", "2", "--out", dir.resolve("sessions.csv").toString(), "--quiet"));
        Path log = dir.resolve("sessions.log");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().put(PeerEnvironment.TRANSPORT, "tcp");
        Process p = pb.start();
        boolean finished;
        try {
            finished = p.waitFor(60, TimeUnit.SECONDS);
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly); // the peers it started, should it not have ended them
            p.destroyForcibly();
        }
        String output = Files.readString(log);
        assertThat(finished).as("ysb --peers 2 finished:%n%s", output).isTrue();
        assertThat(p.exitValue()).as(output).isZero();
        assertThat(output).contains("starting 2 peer JVMs on this machine (AIR's TCP transport")
                .contains("[peer 0] ysb: sessions: checksum matches the reference (YSB-SPEC 11)")
                .contains("sha256=" + SESSIONS_100K);
    }

    /** Regression: on virtual threads, heartbeats starved behind CPU-bound tasklets and a healthy peer was declared lost. */
    @Test
    void heartbeats_keep_flowing_while_tasklets_keep_the_only_carrier_busy(@TempDir Path dir) throws Exception {
        List<String> out = new ArrayList<>();
        List<String> oneCore = new ArrayList<>(JVM);
        oneCore.add("-XX:ActiveProcessorCount=1");
        LocalCluster.Spec spec = LocalCluster.Spec.of(2, YsbMain.class.getName(), List.of("400M", "1", "--quiet",
                "--out", dir.resolve("ysb.csv").toString())).withJvmOptions(oneCore).withOutput(line -> {
            synchronized (out) {
                out.add(line);
            }
        });
        try (LocalCluster cluster = LocalCluster.start(spec)) {
            assertThat(cluster.await(150_000)).as(String.join("\n", out)).containsOnly(0);
            assertEnded(cluster);
        }
        assertThat(out).noneMatch(l -> l.contains(" lost: "));
        assertThat(out).contains("[peer 0] ysb: checksum matches the reference (YSB-SPEC 6.3)");
    }

    @Test
    void a_killed_peer_is_detected_by_the_others_within_five_seconds_and_the_job_fails_naming_it() throws Exception {
        List<String> out = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch running = new CountDownLatch(3);
        long[] detectedAt = new long[3];
        LocalCluster.Spec spec = LocalCluster.Spec.of(3, YsbMain.class.getName(), List.of("2G", "1", "--quiet", "--progress", "hewmeld",
                "--routing", "AIR")).withJvmOptions(JVM).withOutput(line -> {
            out.add(line);
            if (line.contains("job 'ysb-mem' starting")) {
                running.countDown();
            }
            if (line.contains("peer 1 lost") && (line.startsWith("[peer 0]") || line.startsWith("[peer 2]"))) {
                int rank = line.charAt(6) - '0';
                synchronized (detectedAt) {
                    if (detectedAt[rank] == 0) {
                        detectedAt[rank] = System.nanoTime();
                    }
                }
            }
        });
        try (LocalCluster cluster = LocalCluster.start(spec)) {
            assertThat(running.await(60, TimeUnit.SECONDS)).as(String.join("\n", out)).isTrue();
            long killedAt = System.nanoTime();
            cluster.kill(1);
            int[] codes = cluster.await(60_000);
            assertThat(codes[0]).as(String.join("\n", out)).isEqualTo(3);
            assertThat(codes[2]).isEqualTo(3);
            assertEnded(cluster);
            for (int survivor : new int[] {0, 2}) {
                assertThat(detectedAt[survivor]).as("peer %d never reported peer 1 lost:%n%s", survivor, String.join("\n", out)).isPositive();
                double seconds = (detectedAt[survivor] - killedAt) / 1e9;
                System.out.printf("peer %d detected the killed peer 1 after %.3f s%n", survivor, seconds);
                assertThat(seconds).as("detection time of peer %d", survivor).isLessThan(5.0);
            }
        }
        assertThat(out).anyMatch(l -> l.startsWith("[peer 0] ysb: the job failed") && l.contains("peer 1 lost"));
    }

    private static void assertEnded(LocalCluster cluster) {
        for (int i = 0; i < cluster.peers(); i++) {
            assertThat(cluster.process(i).isAlive()).as("peer %d still running", i).isFalse();
        }
    }
}
