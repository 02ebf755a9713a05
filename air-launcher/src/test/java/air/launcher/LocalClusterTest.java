package air.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import air.runtime.JobEvent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The local launcher with real peer processes ({@link ScriptedPeer}): their events come back over
 * the event channel, complete and in order, and the restart supervisor steers them by those alone
 * (the peers log nothing the engine would).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LocalClusterTest {

    private static final List<String> JVM = List.of("-Xmx48m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

    private static LocalCluster.Spec spec(int peers, List<String> out, String... args) {
        return LocalCluster.Spec.of(peers, ScriptedPeer.class.getName(), List.of(args)).withJvmOptions(JVM).withOutput(out::add);
    }

    @Test
    void every_peers_events_arrive_in_order_before_await_returns() throws Exception {
        List<String> out = Collections.synchronizedList(new ArrayList<>());
        List<PeerEvent> events = Collections.synchronizedList(new ArrayList<>());
        int[] codes;
        try (LocalCluster c = LocalCluster.start(spec(2, out, "1", "200").withEnvironment(Map.of(RestartSupervisor.ATTEMPT, "1"))
                .withEvents(events::add))) {
            codes = c.await(60_000);
        }
        assertThat(codes).containsExactly(0, 0);
        for (int peer = 0; peer < 2; peer++) {
            int p = peer;
            List<PeerEvent> mine = events.stream().filter(e -> e.peer() == p).toList();
            assertThat(mine).as("peer %d's events: %s", p, out).hasSize(204);
            assertThat(mine.get(0)).isInstanceOfSatisfying(PeerEvent.Job.class, j -> assertThat(j.event()).isInstanceOf(JobEvent.Started.class));
            for (int k = 0; k < 200; k++) {
                assertThat(((JobEvent.CheckpointWritten) ((PeerEvent.Job) mine.get(1 + k)).event()).checkpoint()).isEqualTo(8 + k);
            }
            assertThat(mine.get(201)).isInstanceOf(PeerEvent.FirstOutput.class);
            assertThat(((PeerEvent.Job) mine.get(203)).event()).isInstanceOf(JobEvent.Finished.class);
        }
        assertThat(out).contains("[peer 0] scripted peer 0: all done", "[peer 1] scripted peer 1: all done");
    }

    @Test
    void the_restart_supervisor_kills_and_restarts_peers_that_log_nothing_it_could_match() throws Exception {
        List<String> out = Collections.synchronizedList(new ArrayList<>());
        RestartSupervisor.Options o = RestartSupervisor.Options.of(3, 2, 7, "/nowhere").withJob("ysb-mem").withKillWindow(0, 200);
        int rc = RestartSupervisor.run(LocalCluster.starter(spec(3, out, "3", "2")), o, () -> new OutputCheck.Outcome(0, 0, 9), out::add);
        assertThat(rc).as(String.join("\n", out)).isZero();
        assertThat(out).filteredOn(l -> l.startsWith("[launcher] kill -9 peer ")).hasSize(2);
        assertThat(out).filteredOn(l -> l.startsWith("[launcher] restart ")).hasSize(2);
        String check = out.stream().filter(l -> l.startsWith("CHECK ")).findFirst().orElseThrow();
        assertThat(check).startsWith("CHECK lost=0 dup=0 kills=2 ").doesNotContain("n/a");
        assertThat(out).noneMatch(l -> l.contains("starting") || l.contains("RUNNING again") || l.contains("replicated at checkpoint"));
    }

    @Test
    void the_restart_supervisor_fails_when_the_job_ends_before_every_kill_landed() throws Exception {
        List<String> out = Collections.synchronizedList(new ArrayList<>());
        RestartSupervisor.Options o = RestartSupervisor.Options.of(2, 3, 7, "/nowhere").withJob("ysb-mem").withKillWindow(0, 200)
                .withFinalExitCodes(Set.of(2));
        int rc = RestartSupervisor.run(LocalCluster.starter(spec(2, out, "2", "0", "nostart")), o, () -> new OutputCheck.Outcome(0, 0, 9), out::add);
        assertThat(rc).as(String.join("\n", out)).isEqualTo(1);
        assertThat(out).contains("[launcher] only 1 of 3 kills landed before the job ended: make the run longer");
    }
}
