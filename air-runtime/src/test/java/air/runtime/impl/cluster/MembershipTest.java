package air.runtime.impl.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import air.runtime.impl.cluster.Membership.Evidence;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The membership protocol over a deterministic in-memory router: messages are queued and
 * delivered in order by {@link World#deliver}, links can be cut, the grace timer runs by hand.
 */
class MembershipTest {

    /** K peers' memberships, a message queue between them, what each installed and whether it was fenced. */
    private static final class World {
        final Membership[] peers;
        final List<List<MembershipView>> installed = new ArrayList<>();
        final List<List<Integer>> removedSeen = new ArrayList<>();
        final String[] fenced;
        final Queue<Runnable> wire = new ArrayDeque<>();
        final Queue<Runnable> timers = new ArrayDeque<>();
        final Set<Integer> cut = new HashSet<>();

        World(int k) {
            peers = new Membership[k];
            fenced = new String[k];
            for (int p = 0; p < k; p++) {
                int self = p;
                installed.add(new ArrayList<>());
                removedSeen.add(new ArrayList<>());
                peers[p] = new Membership(p, k, new Membership.Messenger() {
                    @Override
                    public void sendView(int to, MembershipView view) {
                        if (!cut.contains(self) && !cut.contains(to)) {
                            wire.add(() -> peers[to].onView(self, view));
                        }
                    }

                    @Override
                    public void sendSuspicion(int to, long epoch, int suspect, String why) {
                        if (!cut.contains(self) && !cut.contains(to)) {
                            wire.add(() -> peers[to].onSuspicion(self, epoch, suspect, why));
                        }
                    }
                }, new Membership.Listener() {
                    @Override
                    public void installed(MembershipView view, List<Integer> removed, Map<Integer, String> why) {
                        installed.get(self).add(view);
                        removedSeen.get(self).addAll(removed);
                    }

                    @Override
                    public void fenced(String why) {
                        fenced[self] = why;
                    }
                }, (ms, check) -> timers.add(check), 1_000);
            }
        }

        void deliver() {
            while (!wire.isEmpty()) {
                wire.poll().run();
            }
        }

        /** Every peer in {@code by} suspects {@code suspect}. */
        void suspect(int suspect, Evidence evidence, int... by) {
            for (int p : by) {
                peers[p].suspect(suspect, "test", evidence);
            }
        }

        MembershipView view(int p) {
            return peers[p].view();
        }
    }

    @Test
    void a_silent_peer_is_removed_by_the_coordinator_and_every_survivor_installs_the_same_view() {
        World w = new World(4);
        w.suspect(2, Evidence.SILENT, 0, 1, 3);
        w.deliver();
        for (int p : new int[] {0, 1, 3}) {
            assertThat(w.view(p)).isEqualTo(new MembershipView(1, 4, new int[] {0, 1, 3}));
            assertThat(w.removedSeen.get(p)).containsExactly(2);
            assertThat(w.fenced[p]).isNull();
        }
        assertThat(w.fenced[2]).as("the removed peer reads the view and stops").contains("no longer holds this peer");
        assertThat(w.installed.get(2)).isEmpty();
    }

    @Test
    void a_suspicion_of_a_non_coordinator_alone_is_reported_and_decided_by_the_coordinator() {
        World w = new World(4);
        w.suspect(2, Evidence.LINK_BROKEN, 3); // only peer 3's link to 2 broke
        w.deliver();
        assertThat(w.view(0).members()).containsExactly(0, 1, 3);
        assertThat(w.view(1)).isEqualTo(w.view(0));
        assertThat(w.view(3)).isEqualTo(w.view(0));
    }

    @Test
    void when_the_coordinator_is_lost_the_next_lowest_member_decides() {
        World w = new World(4);
        w.cut.add(0);
        w.suspect(0, Evidence.PROCESS_GONE, 1, 2, 3);
        w.deliver();
        assertThat(w.view(1).members()).containsExactly(1, 2, 3);
        assertThat(w.view(2)).isEqualTo(w.view(1));
        assertThat(w.view(3)).isEqualTo(w.view(1));
        assertThat(w.view(1).epoch()).isEqualTo(1);
    }

    @Test
    void two_losses_close_together_end_in_one_view_without_both_whatever_the_order() {
        World w = new World(5);
        w.cut.add(1);
        w.cut.add(2);
        w.suspect(1, Evidence.PROCESS_GONE, 0, 3);
        w.suspect(2, Evidence.PROCESS_GONE, 4, 3, 0);
        w.suspect(1, Evidence.PROCESS_GONE, 4);
        w.deliver();
        for (int p : new int[] {0, 3, 4}) {
            assertThat(w.view(p).members()).containsExactly(0, 3, 4);
            assertThat(w.removedSeen.get(p)).containsExactlyInAnyOrder(1, 2);
            assertThat(w.fenced[p]).isNull();
        }
    }

    @Test
    void a_peer_that_missed_a_view_installs_the_next_and_learns_of_both_removals() {
        World w = new World(4);
        w.cut.add(3); // peer 3 hears nothing of view 1
        w.suspect(2, Evidence.SILENT, 0, 1);
        w.deliver();
        w.cut.clear();
        w.cut.add(1);
        w.suspect(1, Evidence.PROCESS_GONE, 0);
        w.deliver();
        assertThat(w.view(3)).isEqualTo(new MembershipView(2, 4, new int[] {0, 3}));
        assertThat(w.removedSeen.get(3)).containsExactly(1, 2);
    }

    @Test
    void a_paused_peer_that_resumes_and_hears_nobody_fences_itself_at_once() {
        World w = new World(4);
        w.peers[2].suspect(Map.of(0, "no heartbeat for 5.0 s", 1, "no heartbeat for 5.0 s", 3, "no heartbeat for 5.0 s"),
                Evidence.SILENT);
        assertThat(w.fenced[2]).contains("not a quorum");
        assertThat(w.wire).as("a fenced peer decides nothing").isEmpty();
    }

    @Test
    void of_two_halves_of_a_partition_only_the_one_with_the_lowest_rank_goes_on() {
        World w = new World(4);
        w.cut.add(2);
        w.cut.add(3);
        w.suspect(2, Evidence.SILENT, 0, 1);
        w.suspect(3, Evidence.SILENT, 0, 1);
        w.suspect(0, Evidence.SILENT, 2, 3);
        w.suspect(1, Evidence.SILENT, 2, 3);
        w.deliver();
        assertThat(w.fenced[0]).isNull();
        assertThat(w.fenced[1]).isNull();
        assertThat(w.view(0).members()).containsExactly(0, 1);
        assertThat(w.fenced[2]).contains("not a quorum");
        assertThat(w.fenced[3]).contains("not a quorum");
    }

    @Test
    void in_a_world_of_two_a_dead_process_leaves_the_other_running_but_silence_alone_fences_the_higher_rank() {
        World gone = new World(2);
        gone.suspect(0, Evidence.PROCESS_GONE, 1);
        assertThat(gone.fenced[1]).isNull();
        assertThat(gone.view(1).members()).containsExactly(1);

        World silent = new World(2);
        silent.suspect(0, Evidence.SILENT, 1);
        silent.suspect(1, Evidence.SILENT, 0);
        assertThat(silent.fenced[1]).as("it cannot tell a dead peer 0 from a partition").isNotNull();
        assertThat(silent.fenced[0]).isNull();
    }

    @Test
    void a_broken_link_without_quorum_waits_for_the_liveness_verdict_before_fencing() {
        World w = new World(2);
        w.suspect(0, Evidence.LINK_BROKEN, 1);
        assertThat(w.fenced[1]).as("waits for the liveness connection").isNull();
        w.suspect(0, Evidence.PROCESS_GONE, 1); // the process is gone: peer 1 goes on alone
        assertThat(w.fenced[1]).isNull();
        assertThat(w.view(1).members()).containsExactly(1);

        World cut = new World(2);
        cut.suspect(0, Evidence.LINK_BROKEN, 1);
        assertThat(cut.timers).hasSize(1);
        cut.timers.poll().run(); // the grace is over and peer 0's process was not reported gone
        assertThat(cut.fenced[1]).contains("not a quorum");
    }

    @Test
    void stale_views_and_views_from_removed_peers_are_ignored() {
        World w = new World(4);
        w.suspect(3, Evidence.PROCESS_GONE, 0);
        w.deliver();
        MembershipView now = w.view(1);
        w.peers[1].onView(0, MembershipView.initial(4));
        assertThat(w.view(1)).isEqualTo(now);
        w.peers[1].onView(3, new MembershipView(5, 4, new int[] {1, 2}));
        assertThat(w.view(1)).as("peer 3 is no member any more").isEqualTo(now);
        w.peers[1].onView(3, new MembershipView(6, 4, new int[] {2}));
        assertThat(w.fenced[1]).as("a removed peer's view fences nobody").isNull();
    }

    @Test
    void quorum_is_a_majority_of_the_members_not_known_dead_or_half_with_the_lowest() {
        assertThat(Membership.isQuorum(List.of(0, 1, 3), List.of(0, 1, 2, 3))).isTrue();
        assertThat(Membership.isQuorum(List.of(0, 1), List.of(0, 1, 2, 3))).isTrue();
        assertThat(Membership.isQuorum(List.of(2, 3), List.of(0, 1, 2, 3))).isFalse();
        assertThat(Membership.isQuorum(List.of(3), List.of(0, 1, 2, 3))).isFalse();
        assertThat(Membership.isQuorum(List.of(3), List.of(3))).isTrue();
        assertThat(Membership.isQuorum(List.of(), List.of())).isFalse();
    }

    @Test
    void a_view_names_who_takes_a_removed_peers_share_in_ring_order() {
        MembershipView v = new MembershipView(2, 4, new int[] {0, 3});
        assertThat(v.hostAfter(1)).isEqualTo(3);
        assertThat(v.hostAfter(2)).isEqualTo(3);
        assertThat(v.hostAfter(3)).isEqualTo(0);
        assertThat(v.membersAfter(3)).containsExactly(0);
        assertThat(v.removedSince(MembershipView.initial(4))).containsExactly(1, 2);
    }
}
