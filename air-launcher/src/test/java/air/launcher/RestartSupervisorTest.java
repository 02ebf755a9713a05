package air.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import air.runtime.JobEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The restart supervisor's decisions, from events alone, over peers in this JVM. */
class RestartSupervisorTest {

    private static final int PEERS = 3;
    private static final OutputCheck EXACT = () -> new OutputCheck.Outcome(0, 0, 42);

    /** Attempts that run until killed: every peer reports Started (and, after a restart, the restore). */
    private static FakePeers.Script running(boolean finishes) {
        return new FakePeers.Script() {
            @Override
            public void started(FakePeers g) {
                for (int p = 0; p < g.peers; p++) {
                    if (g.attempt > 1) {
                        g.report(new JobEvent.Recovering("ysb-mem", p, FakePeers.now(), 4));
                    }
                    g.report(new JobEvent.Started("ysb-mem", p, FakePeers.now(), 5, 1));
                    if (g.attempt > 1) {
                        g.report(new JobEvent.RunningAgain("ysb-mem", p, FakePeers.now(), p, 4, 12));
                        g.report(new PeerEvent.FirstOutput(p, FakePeers.now()));
                    }
                    g.report(new JobEvent.Started("another-job", p, FakePeers.now(), 5, 1)); // not the job watched: ignored
                }
            }

            @Override
            public boolean finishesAtOnce(FakePeers g) {
                return finishes;
            }
        };
    }

    private static RestartSupervisor.Options options(int kills) {
        return RestartSupervisor.Options.of(PEERS, kills, 11, "/ck").withJob("ysb-mem").withKillWindow(0, 1)
                .withFinalExitCodes(Set.of(1, 2));
    }

    @Test
    void kills_land_once_every_peer_started_and_the_check_line_times_recovery_from_the_events() throws Exception {
        FakePeers.Starter starter = new FakePeers.Starter(PEERS, List.of(running(false), running(false), running(true)));
        List<String> out = new ArrayList<>();
        int rc = RestartSupervisor.run(starter, options(2), EXACT, out::add);
        assertThat(rc).as(String.join("\n", out)).isZero();
        assertThat(starter.started).hasSize(3);
        assertThat(starter.started).allMatch(g -> g.environment.get(RestartSupervisor.ATTEMPT).equals(Integer.toString(g.attempt)));
        assertThat(out).filteredOn(l -> l.startsWith("[launcher] kill -9 peer ")).hasSize(2);
        assertThat(out).filteredOn(l -> l.startsWith("[launcher] restart ")).hasSize(2)
                .allMatch(l -> l.contains("resumes from the newest checkpoint in /ck"));
        String check = out.stream().filter(l -> l.startsWith("CHECK ")).findFirst().orElseThrow();
        assertThat(check).startsWith("CHECK lost=0 dup=0 kills=2 recovery_p50_ms=").endsWith(" rows=42")
                .doesNotContain("recovery_p50_ms=n/a").doesNotContain("running_again_p50_ms=n/a");
    }

    @Test
    void fewer_kills_than_asked_fail_the_run_saying_how_many_landed() throws Exception {
        // the second attempt ends before its kill moment: one of three kills landed
        FakePeers.Starter starter = new FakePeers.Starter(PEERS, List.of(running(false), running(true)));
        List<String> out = new ArrayList<>();
        int rc = RestartSupervisor.run(starter, options(3), EXACT, out::add);
        assertThat(rc).isNotZero();
        assertThat(out).contains("[launcher] only 1 of 3 kills landed before the job ended: make the run longer");
        assertThat(out).anyMatch(l -> l.startsWith("CHECK lost=0 dup=0 kills=1 "));
    }

    @Test
    void peers_that_report_no_start_are_never_killed_whatever_they_print() throws Exception {
        FakePeers.Script silent = new FakePeers.Script() {
            @Override
            public void started(FakePeers g) {
                // a peer that would log "job 'ysb-mem' starting" but reports no event
            }

            @Override
            public boolean finishesAtOnce(FakePeers g) {
                return true;
            }
        };
        FakePeers.Starter starter = new FakePeers.Starter(PEERS, List.of(silent));
        List<String> out = new ArrayList<>();
        assertThat(RestartSupervisor.run(starter, options(1), EXACT, out::add)).isNotZero();
        assertThat(starter.started.get(0).killed).isEmpty();
        assertThat(out).contains("[launcher] only 0 of 1 kills landed before the job ended: make the run longer");
    }

    @Test
    void lost_output_fails_the_run_and_a_final_exit_code_is_not_restarted() throws Exception {
        FakePeers.Starter starter = new FakePeers.Starter(PEERS, List.of(running(false), running(true)));
        List<String> out = new ArrayList<>();
        assertThat(RestartSupervisor.run(starter, options(1), () -> new OutputCheck.Outcome(3, 0, 39), out::add)).isEqualTo(1);
        assertThat(out).anyMatch(l -> l.startsWith("CHECK lost=3 dup=0 kills=1 "));

        FakePeers.Script wrong = new FakePeers.Script() {
            @Override
            public void started(FakePeers g) {
                g.exit(0, 2);
            }

            @Override
            public boolean finishesAtOnce(FakePeers g) {
                return true;
            }
        };
        FakePeers.Starter bad = new FakePeers.Starter(PEERS, List.of(wrong));
        assertThat(RestartSupervisor.run(bad, options(1), EXACT, l -> { })).isEqualTo(2);
        assertThat(bad.started).hasSize(1);
    }

    @Test
    void a_peer_that_keeps_dying_is_given_up_on_after_the_restarts_allowed() throws Exception {
        FakePeers.Script dies = new FakePeers.Script() {
            @Override
            public void started(FakePeers g) {
                g.exit(1, 3);
            }

            @Override
            public boolean finishesAtOnce(FakePeers g) {
                return true;
            }
        };
        FakePeers.Starter starter = new FakePeers.Starter(PEERS, List.of(dies));
        List<String> out = new ArrayList<>();
        assertThat(RestartSupervisor.run(starter, options(0).withMaxRestarts(2), EXACT, out::add)).isEqualTo(3);
        assertThat(starter.started).hasSize(3);
        assertThat(out).contains("[launcher] giving up after 2 restarts");
    }

    /** {@link #running} whose peers each report a checkpoint written once started. */
    private static FakePeers.Script checkpointing(boolean finishes) {
        FakePeers.Script inner = running(finishes);
        return new FakePeers.Script() {
            @Override
            public void started(FakePeers g) {
                inner.started(g);
                for (int p = 0; p < g.peers; p++) {
                    g.report(new JobEvent.CheckpointWritten("ysb-mem", p, FakePeers.now(), 1, 3, 100));
                }
            }

            @Override
            public boolean finishesAtOnce(FakePeers g) {
                return inner.finishesAtOnce(g);
            }
        };
    }

    @Test
    void with_kill_after_a_checkpoint_kills_land_once_every_peer_wrote_one() throws Exception {
        FakePeers.Starter starter = new FakePeers.Starter(PEERS, List.of(checkpointing(false), checkpointing(true)));
        List<String> out = new ArrayList<>();
        int rc = RestartSupervisor.run(starter, options(1).withKillAfterACheckpoint(), EXACT, out::add);
        assertThat(rc).as(String.join("\n", out)).isZero();
        assertThat(out).filteredOn(l -> l.startsWith("[launcher] kill -9 peer ")).hasSize(1);
    }

    @Test
    void with_kill_after_a_checkpoint_no_kill_lands_before_every_peer_wrote_one() throws Exception {
        // attempts whose peers start but never report a checkpoint, and end on their own: no kill may land
        FakePeers.Starter starter = new FakePeers.Starter(PEERS, List.of(running(true)));
        List<String> out = new ArrayList<>();
        int rc = RestartSupervisor.run(starter, options(1).withKillAfterACheckpoint(), EXACT, out::add);
        assertThat(starter.started.get(0).killed).isEmpty();
        assertThat(rc).isEqualTo(ExitCodes.CHECK_FAILED);
        assertThat(out).contains("[launcher] only 0 of 1 kills landed before the job ended: make the run longer");
    }

    @Test
    void a_partitioned_peer_must_stop_fenced_and_the_restart_waits_until_its_host_is_connected_again() throws Exception {
        FakePeers.Starter starter = new FakePeers.Starter(PEERS, List.of(running(false), running(true)));
        List<String> out = new ArrayList<>();
        int rc = RestartSupervisor.run(starter, options(1).withPartitions(5), EXACT, out::add);
        assertThat(rc).as(String.join("\n", out)).isZero();
        FakePeers first = starter.started.get(0);
        assertThat(first.killed).isEmpty();
        int victim = first.cut.iterator().next();
        assertThat(first.healed).containsExactly(victim);
        List<String> launcher = out.stream().filter(l -> l.startsWith("[launcher] ")).toList();
        assertThat(launcher.get(0)).isEqualTo("[launcher] cut peer " + victim + "'s host off the network for 5 ms (partition 1 of 1)");
        assertThat(launcher.get(1)).startsWith("[launcher] connected peer " + victim + "'s host again");
        assertThat(launcher.get(2)).isEqualTo("[launcher] peer " + victim + " stopped fenced after its partition");
        assertThat(launcher.get(3)).startsWith("[launcher] restart 1: every peer resumes from the newest checkpoint in /ck");
        assertThat(out).anyMatch(l -> l.startsWith("CHECK lost=0 dup=0 kills=1 "));

        FakePeers.Script unfenced = new FakePeers.Script() {
            @Override
            public void started(FakePeers g) {
                g.fencedCode = 0;
                running(false).started(g);
            }

            @Override
            public boolean finishesAtOnce(FakePeers g) {
                return false;
            }
        };
        List<String> out2 = new ArrayList<>();
        FakePeers.Starter bad = new FakePeers.Starter(PEERS, List.of(unfenced));
        assertThat(RestartSupervisor.run(bad, options(1).withPartitions(5), EXACT, out2::add)).isEqualTo(ExitCodes.CHECK_FAILED);
        assertThat(out2).anyMatch(l -> l.contains(" was cut off but exited with status 0, not fenced (5)"));
    }
}
