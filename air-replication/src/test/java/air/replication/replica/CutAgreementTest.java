package air.replication.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.impl.cluster.MembershipView;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Blocks 1 and 3 of five peers are lost in one view, under two replicas; peer 1 died while sending
 * REPLICATED for its checkpoint 7, so peer 2 (the host of block 1) heard it and peer 4 (the host of
 * block 3) did not. Deciding alone, the hosts would resume the two blocks from different
 * checkpoints (what block 1 sent block 3 between them would be lost); agreeing on what every member
 * said, they resume both from the same one, at or after where any member's producers trimmed.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CutAgreementTest {

    private static final MembershipView VIEW = new MembershipView(1, 5, new int[] {0, 2, 4});
    private static final List<Integer> MOVED = List.of(1, 3);

    /** What peer 2 knows: block 1 replicated 7 (before it 6), block 3 replicated 6 (before it 5). */
    private static final Map<Integer, CutAgreement.Cuts> HEARD_IT = Map.of(1, new CutAgreement.Cuts(6, 7), 3, new CutAgreement.Cuts(5, 6));
    /** What peers 0 and 4 know: block 1's REPLICATED of 7 never reached them. */
    private static final Map<Integer, CutAgreement.Cuts> MISSED_IT = Map.of(1, new CutAgreement.Cuts(5, 6), 3,
            new CutAgreement.Cuts(5, 6));

    @Test
    void hosts_that_knew_different_cuts_agree_on_the_newest_any_member_knew() throws Exception {
        assertThat(CutAgreement.decide(List.of(HEARD_IT), MOVED)).as("peer 2 alone").isEqualTo(6);
        assertThat(CutAgreement.decide(List.of(MISSED_IT), MOVED)).as("peer 4 alone: a different checkpoint").isEqualTo(5);

        CutAgreement atTwo = new CutAgreement();
        CutAgreement atFour = new CutAgreement();
        long deadline = System.currentTimeMillis() + 10_000;
        // the members' messages arrive in different orders at the two hosts
        atTwo.heard(1, 2, HEARD_IT);
        atFour.heard(1, 4, MISSED_IT);
        atFour.heard(1, 0, MISSED_IT);
        CompletableFuture<Long> four = CompletableFuture.supplyAsync(() -> await(atFour, deadline), r -> Thread.ofPlatform().start(r));
        assertThat(four).as("peer 2 has not said yet").isNotDone();
        atFour.heard(1, 2, HEARD_IT);
        atTwo.heard(1, 0, MISSED_IT);
        atTwo.heard(1, 4, MISSED_IT);
        assertThat(await(atTwo, deadline)).isEqualTo(6);
        assertThat(four.get(10, TimeUnit.SECONDS)).as("the same checkpoint on both hosts").isEqualTo(6);
    }

    @Test
    void while_nothing_was_trimmed_the_oldest_newest_cut_is_chosen_so_every_block_has_a_copy() {
        Map<Integer, CutAgreement.Cuts> one = Map.of(1, new CutAgreement.Cuts(0, 1), 3, new CutAgreement.Cuts(0, 2));
        Map<Integer, CutAgreement.Cuts> other = Map.of(1, new CutAgreement.Cuts(0, 2), 3, new CutAgreement.Cuts(0, 2));
        assertThat(CutAgreement.decide(List.of(one, other), MOVED)).isEqualTo(2);
        assertThat(CutAgreement.decide(List.of(one), MOVED)).isEqualTo(1);
    }

    @Test
    void a_member_lost_before_it_said_fails_the_agreement_naming_it_and_so_does_the_deadline() {
        CutAgreement agreement = new CutAgreement();
        agreement.heard(1, 0, MISSED_IT);
        agreement.heard(1, 2, HEARD_IT);
        AtomicReference<MembershipView> installed = new AtomicReference<>(new MembershipView(2, 5, new int[] {0, 2}));
        assertThatThrownBy(() -> agreement.await(VIEW, MOVED, installed::get, System.currentTimeMillis() + 10_000))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("peer(s) [4] were lost before they said")
                .hasMessageContaining("cannot agree on one checkpoint");
        installed.set(VIEW);
        assertThatThrownBy(() -> agreement.await(VIEW, MOVED, installed::get, System.currentTimeMillis() + 200))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("peer(s) [4] did not say");
    }

    private static long await(CutAgreement agreement, long deadline) {
        try {
            return agreement.await(VIEW, MOVED, () -> VIEW, deadline);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
