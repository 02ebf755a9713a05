package air.samples;

import static org.assertj.core.api.Assertions.assertThat;

import air.channels.bootstrap.PeerEnvironment;
import air.launcher.LocalCluster;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Keys of any type across two peer JVMs (issue 14 item 6): a job keyed by an enum and by a record
 * holding the enum, with no codec anywhere ({@link AnyKeyPeer}), run as 2 local peer JVMs. In-JVM
 * peers share identity hashes, so only separate JVMs show that KEY routing no longer uses
 * {@code Object.hashCode}: every key's process-function outputs and every (window, key) result must
 * come from exactly one peer, with the exact counts of a plain computation. Had a key been routed by
 * its identity hash, its records would have split between owners on the two JVMs: the key printed by
 * two peers, or running counts restarting (outputs above max), or a window's sum in two parts.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AnyKeyPeersIT {

    private static final Pattern PROCESS =
            Pattern.compile("^\\[peer (\\d+)] PROCESS (enum|record) (\\S+) outputs=(\\d+) max=(\\d+) distinct=(\\d+)$");
    private static final Pattern WINDOW = Pattern.compile("^\\[peer (\\d+)] WINDOW (\\d+) (\\S+) (\\d+)$");

    @ParameterizedTest(name = "transport={0}")
    @ValueSource(strings = {"tcp", "mpj"})
    void enum_and_record_keys_without_codecs_are_each_owned_by_one_peer_with_exact_results(String transport) throws Exception {
        List<String> out = new ArrayList<>();
        LocalCluster.Spec spec = LocalCluster.Spec.of(2, AnyKeyPeer.class.getName(), List.of()).withJvmOptions(List.of("-Xmx256m"))
                .withEnvironment(Map.of(PeerEnvironment.TRANSPORT, transport)).withOutput(line -> {
                    synchronized (out) {
                        out.add(line);
                    }
                });
        try (LocalCluster cluster = LocalCluster.start(spec)) {
            assertThat(cluster.await(90_000)).as(String.join("\n", out)).containsOnly(0);
            for (int i = 0; i < cluster.peers(); i++) {
                assertThat(cluster.process(i).isAlive()).as("peer %d still running", i).isFalse();
            }
        }
        List<String> lines;
        synchronized (out) {
            lines = List.copyOf(out);
        }
        List<String> identity = lines.stream().filter(l -> l.contains("] IDENTITY ")).map(l -> l.substring(l.indexOf("IDENTITY"))).toList();
        System.out.printf("identity hashes of the enum's constants, per peer JVM (%s):%n  %s%n", transport, String.join("\n  ", identity));

        // the plain computation
        Map<String, Long> perSign = new TreeMap<>();
        Map<String, Long> perShade = new TreeMap<>();
        Map<String, Long> perWindow = new TreeMap<>();
        for (AnyKeyPeer.Reading r : AnyKeyPeer.readings()) {
            AnyKeyPeer.Shade shade = new AnyKeyPeer.Shade(r.sign(), r.level());
            perSign.merge(AnyKeyPeer.name(r.sign()), 1L, Long::sum);
            perShade.merge(AnyKeyPeer.name(shade), 1L, Long::sum);
            perWindow.merge(r.time() / AnyKeyPeer.WINDOW_MS * AnyKeyPeer.WINDOW_MS + " " + AnyKeyPeer.name(shade), r.value(), Long::sum);
        }
        assertThat(perSign).hasSize(8);
        assertThat(perShade).hasSize(40);

        Map<String, Map<String, Long>> processed = Map.of("enum", new TreeMap<>(), "record", new TreeMap<>());
        Map<String, Integer> ownerOf = new HashMap<>();
        Map<String, Long> windows = new TreeMap<>();
        int[] keysPerPeer = new int[2];
        SoftAssertions split = new SoftAssertions(); // every key split between owners, not just the first
        for (String line : lines) {
            Matcher m = PROCESS.matcher(line);
            if (m.matches()) {
                int peer = Integer.parseInt(m.group(1));
                String kind = m.group(2);
                String key = m.group(3);
                long outputs = Long.parseLong(m.group(4));
                split.assertThat(ownerOf.put(kind + " " + key, peer)).as("%s key %s printed by two peers: %s", kind, key, line).isNull();
                split.assertThat(m.group(5)).as("%s key %s: its running count restarted (split between owners): %s", kind, key, line)
                        .isEqualTo(m.group(4));
                split.assertThat(Long.parseLong(m.group(6))).as("%s key %s: distinct counts: %s", kind, key, line).isEqualTo(outputs);
                processed.get(kind).put(key, outputs);
                keysPerPeer[peer]++;
                continue;
            }
            m = WINDOW.matcher(line);
            if (m.matches()) {
                String window = m.group(2) + " " + m.group(3);
                split.assertThat(windows.put(window, Long.parseLong(m.group(4)))).as("window %s emitted twice (split between owners)", window)
                        .isNull();
            }
        }
        split.assertAll();
        assertThat(processed.get("enum")).as("process function keyed by the enum").isEqualTo(perSign);
        assertThat(processed.get("record")).as("process function keyed by the record").isEqualTo(perShade);
        assertThat(windows).as("window sums keyed by the record").isEqualTo(perWindow);
        assertThat(keysPerPeer).as("keys owned per peer (both own some, so records crossed between the JVMs)").doesNotContain(0);
    }
}
