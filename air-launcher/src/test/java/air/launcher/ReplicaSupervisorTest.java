package air.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.JobEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The replica supervisor's decisions, from events alone, over peers in this JVM that replicate as the runtime does. */
class ReplicaSupervisorTest {

    private static final int PEERS = 4;
    private static final int WORKERS = 2;
    private static final OutputCheck EXACT = () -> new OutputCheck.Outcome(0, 0, 42);

    /**
     * Replication with one replica on the next live peer: each takeover moves the dead peer's blocks
     * to the next live one, which reports it; then (unless {@code stale}) every survivor whose blocks
     * or replica changed reports its next snapshot; {@code partDoneAfter} takeovers in, a part ends.
     */
    static class Replicating implements FakePeers.Script {
        final Set<Integer> live = new TreeSet<>();
        final Map<Integer, Set<Integer>> blocks = new HashMap<>();
        final boolean stale;
        final int partDoneAfter;
        int takeovers;
        long checkpoint = 1;

        Replicating(boolean stale, int partDoneAfter) {
            this.stale = stale;
            this.partDoneAfter = partDoneAfter;
        }

        private int nextLive(int p) {
            for (int k = 1; k < PEERS; k++) {
                if (live.contains((p + k) % PEERS)) {
                    return (p + k) % PEERS;
                }
            }
            throw new IllegalStateException("none left");
        }

        private void replicated(FakePeers g, int p) {
            g.report(new JobEvent.StateReplicated("ysb-mem", p, FakePeers.now(), List.copyOf(new TreeSet<>(blocks.get(p))), checkpoint,
                    List.of(nextLive(p))));
        }

        @Override
        public void started(FakePeers g) {
            for (int p = 0; p < PEERS; p++) {
                live.add(p);
                blocks.put(p, new HashSet<>(Set.of(p)));
            }
            for (int p = 0; p < PEERS; p++) {
                g.report(new JobEvent.Started("ysb-mem", p, FakePeers.now(), 6, WORKERS));
            }
            for (int p = 0; p < PEERS; p++) {
                replicated(g, p);
            }
        }

        @Override
        public void killed(FakePeers g, int victim) {
            live.remove(victim);
            int host = nextLive(victim);
            Set<Integer> moved = blocks.remove(victim);
            blocks.get(host).addAll(moved);
            g.report(new JobEvent.Takeover("ysb-mem", host, FakePeers.now(), victim, List.copyOf(new TreeSet<>(moved)), checkpoint));
            for (int b : moved) {
                g.report(new PeerEvent.RestoredOutput(host, FakePeers.now(), b * WORKERS + 1));
            }
            takeovers++;
            if (takeovers == partDoneAfter) {
                g.report(new JobEvent.PartDone("ysb-mem", host, FakePeers.now()));
            }
            if (!stale && live.size() > 1) { // the last peer left has nowhere to replicate to
                checkpoint++;
                for (int p : live) {
                    replicated(g, p);
                }
            }
        }

        @Override
        public boolean finishesAtOnce(FakePeers g) {
            return false;
        }
    }

    private static ReplicaSupervisor.Options options(int kills) {
        return ReplicaSupervisor.Options.of(PEERS, 1, WORKERS, kills, 2).withJob("ysb-mem").withKillWindow(2, 1).withWaitMs(300);
    }

    @Test
    void each_kill_waits_for_the_takeover_and_fresh_copies_and_the_check_line_times_them_from_the_events() throws Exception {
        Replicating script = new Replicating(false, -1);
        FakePeers.Starter starter = new FakePeers.Starter(PEERS, List.of(script));
        List<String> out = new ArrayList<>();
        int rc = ReplicaSupervisor.run(starter, options(3), EXACT, out::add);
        assertThat(rc).as(String.join("\n", out)).isZero();
        assertThat(starter.started).hasSize(1);
        assertThat(starter.started.get(0).killed).hasSize(3);
        assertThat(out).filteredOn(l -> l.startsWith("[launcher] kill -9 peer ")).hasSize(3);
        assertThat(out).filteredOn(l -> l.startsWith("[launcher] kill ") && l.contains("takeover_ms=")).hasSize(3)
                .noneMatch(l -> l.contains("=-1"));
        String check = out.stream().filter(l -> l.startsWith("CHECK ")).findFirst().orElseThrow();
        assertThat(check).startsWith("CHECK lost=0 dup=0 kills=3 recovery_p50_ms=").contains(" takeover_p50_ms=").endsWith(" rows=42")
                .doesNotContain("n/a");
    }

    @Test
    void no_further_kill_lands_while_the_survivors_copies_are_stale_and_the_run_fails_saying_so() throws Exception {
        FakePeers.Starter starter = new FakePeers.Starter(PEERS, List.of(new Replicating(true, -1)));
        List<String> out = new ArrayList<>();
        assertThat(ReplicaSupervisor.run(starter, options(2), EXACT, out::add)).isNotZero();
        assertThat(starter.started.get(0).killed).hasSize(1);
        assertThat(out).contains("[launcher] only 1 of 2 kills landed before the job ended: make the run longer");
    }

    @Test
    void no_kill_lands_once_a_peer_reported_its_part_done() throws Exception {
        FakePeers.Starter starter = new FakePeers.Starter(PEERS, List.of(new Replicating(false, 1)));
        List<String> out = new ArrayList<>();
        assertThat(ReplicaSupervisor.run(starter, options(3), EXACT, out::add)).isNotZero();
        assertThat(starter.started.get(0).killed).hasSize(1);
        assertThat(out).contains("[launcher] only 1 of 3 kills landed before the job ended: make the run longer");
        assertThat(out).anyMatch(l -> l.startsWith("CHECK lost=0 dup=0 kills=1 "));
    }

    @Test
    void a_peer_killed_from_outside_and_taken_over_is_survived_and_the_run_exits_0() throws Exception {
        Replicating replicating = new Replicating(false, -1);
        FakePeers.Script outsideKill = new FakePeers.Script() {
            @Override
            public void started(FakePeers g) {
                replicating.started(g);
                g.kill(2); // not the launcher's kill: an operator's kill -9, an OOM killer
            }

            @Override
            public void killed(FakePeers g, int victim) {
                replicating.killed(g, victim);
            }

            @Override
            public boolean finishesAtOnce(FakePeers g) {
                return true;
            }
        };
        FakePeers.Starter starter = new FakePeers.Starter(PEERS, List.of(outsideKill));
        List<String> out = new ArrayList<>();
        int rc = ReplicaSupervisor.run(starter, options(0), EXACT, out::add);
        assertThat(rc).as(String.join("\n", out)).isZero();
        assertThat(out).anyMatch(l -> l.startsWith("[launcher] peer 2 died outside the launcher (status 137); peer 3 took its share over"));
        assertThat(out).anyMatch(l -> l.startsWith("CHECK lost=0 dup=0 kills=0 "));
    }

    @Test
    void a_peer_that_dies_outside_the_launcher_with_nobody_taking_over_fails_the_run() throws Exception {
        FakePeers.Script dies = new FakePeers.Script() {
            @Override
            public void started(FakePeers g) {
                new Replicating(false, -1).started(g);
                g.kill(1); // and no takeover is reported
            }

            @Override
            public boolean finishesAtOnce(FakePeers g) {
                return true;
            }
        };
        List<String> out = new ArrayList<>();
        int rc = ReplicaSupervisor.run(new FakePeers.Starter(PEERS, List.of(dies)), options(0), EXACT, out::add);
        assertThat(rc).isEqualTo(ExitCodes.JOB_FAILED);
        assertThat(out).contains("[launcher] peer 1 exited with status 137");
    }

    @Test
    void a_partitioned_peer_is_taken_over_its_host_connected_again_and_its_fenced_exit_is_a_survived_run() throws Exception {
        FakePeers.Starter starter = new FakePeers.Starter(PEERS, List.of(new Replicating(false, -1)));
        List<String> out = new ArrayList<>();
        int rc = ReplicaSupervisor.run(starter, options(1).withFault(ReplicaSupervisor.Fault.partition(5)), EXACT, out::add);
        assertThat(rc).as(String.join("\n", out)).isZero();
        FakePeers g = starter.started.get(0);
        assertThat(g.killed).isEmpty();
        assertThat(g.cut).hasSize(1);
        int victim = g.cut.iterator().next();
        assertThat(g.healed).containsExactly(victim);
        assertThat(out).contains("[launcher] cut peer " + victim + "'s host off the network for 5 ms (partition 1 of 1)");
        assertThat(out).anyMatch(l -> l.startsWith("[launcher] connected peer " + victim + "'s host again"));
        assertThat(out).anyMatch(l -> l.startsWith("[launcher] peer " + victim + " stopped fenced after its partition; peer "));
        assertThat(out).anyMatch(l -> l.startsWith("CHECK lost=0 dup=0 kills=1 "));
    }

    @Test
    void a_partitioned_peer_that_does_not_stop_fenced_fails_the_run_saying_so() throws Exception {
        FakePeers.Script unfenced = new Replicating(false, -1) {
            @Override
            public void started(FakePeers g) {
                g.fencedCode = 0; // ran on alone and ended "well": beside its successor
                super.started(g);
            }
        };
        FakePeers.Starter starter = new FakePeers.Starter(PEERS, List.of(unfenced));
        List<String> out = new ArrayList<>();
        int rc = ReplicaSupervisor.run(starter, options(1).withFault(ReplicaSupervisor.Fault.partition(5)), EXACT, out::add);
        assertThat(rc).isEqualTo(ExitCodes.CHECK_FAILED);
        int victim = starter.started.get(0).cut.iterator().next();
        assertThat(out).contains("[launcher] peer " + victim + " was cut off and declared lost but exited with status 0, not fenced (5)");
    }

    @Test
    void a_fault_is_a_kill_a_pause_or_a_partition_never_both() {
        assertThat(ReplicaSupervisor.Fault.partition(5).partitions()).isTrue();
        assertThat(ReplicaSupervisor.Fault.partition(5).together(2).partitionMs()).isEqualTo(5);
        assertThat(ReplicaSupervisor.Fault.KILL.partitions()).isFalse();
        assertThat(ReplicaSupervisor.Fault.pause(5).partitions()).isFalse();
        assertThatThrownBy(() -> new ReplicaSupervisor.Fault(5, 1, 5)).isInstanceOf(IllegalArgumentException.class);
    }
}
