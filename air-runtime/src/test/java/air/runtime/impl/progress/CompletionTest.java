package air.runtime.impl.progress;

import static org.assertj.core.api.Assertions.assertThat;

import air.hewmeld.Credit;
import air.runtime.plan.Progress;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Both completion strategies, as the inbound edge drives them. */
class CompletionTest {

    private final List<String> heard = new ArrayList<>();
    private final Completion.Listener listener = new Completion.Listener() {
        @Override
        public void onEpochComplete(long epochStart) {
            heard.add("epoch " + epochStart);
        }

        @Override
        public void onProgress(long completeBelow) {
            heard.add("below " + completeBelow);
        }
    };

    private Completion of(Progress progress, int... producers) {
        return Completion.of(progress, "op", 10, producers).apply(listener);
    }

    @Test
    void when_watermarks_arrive_then_completion_is_one_past_the_minimum_and_holders_are_the_slowest() {
        Completion c = of(Progress.WATERMARK, 3);
        c.onWatermark(0, 0, 50);
        c.onWatermark(0, 1, 20);
        assertThat(heard).isEmpty();
        c.onWatermark(0, 2, 30);
        assertThat(heard).containsExactly("below 21");
        assertThat(c.holders(0, new int[] {0, 3})).containsExactly(1);
        c.onEndOfStream(0, 1);
        assertThat(heard).containsExactly("below 21", "below 31");
        assertThat(c.oldestIncomplete()).isEqualTo(Long.MAX_VALUE);
        assertThat(c.incompleteAtEnd()).isNull();
    }

    @Test
    void a_million_epochs_of_hew_meld_leave_its_snapshot_as_small_as_after_ten() {
        Completion c = Completion.of(Progress.HEWMELD, "op", 10, new int[] {2, 2}).apply(new Completion.Listener() {
            @Override
            public void onEpochComplete(long epochStart) {
            }

            @Override
            public void onProgress(long completeBelow) {
            }
        });
        int afterTen = -1;
        for (long i = 0; i < 1_000_000; i++) {
            long epoch = i * 10;
            for (int input = 0; input < 2; input++) {
                c.onCredit(input, 0, epoch, Credit.shareOf(0, 2));
                if (i % 2 == 0) {
                    c.onCredit(input, 1, epoch, Credit.shareOf(1, 2));
                } else {
                    c.onCreditRange(input, 1, epoch, epoch + 10);
                }
            }
            if (i == 10) {
                afterTen = snapshotSize(c);
            }
        }
        assertThat(c.completeBelow()).isEqualTo(10_000_000L);
        assertThat(snapshotSize(c)).as("the ledgers forget what is below the low-water mark").isEqualTo(afterTen);
    }

    private static int snapshotSize(Completion c) {
        WireOut out = new WireOut(64);
        c.snapshotTo(out);
        return out.size();
    }

    @Test
    void when_credit_of_an_epoch_adds_up_to_one_then_it_completes_at_once_and_progress_follows_the_frontiers() {
        Completion c = of(Progress.HEWMELD, 2);
        c.onCredit(0, 1, 10, Credit.shareOf(1, 2));
        c.onCredit(0, 0, 10, Credit.shareOf(0, 2));
        // FIFO per producer: credit for epoch 10 means each released everything before it
        assertThat(heard).containsExactly("epoch 10", "below 20");
        c.onCreditRange(0, 0, 20, 40);
        assertThat(heard).containsExactly("epoch 10", "below 20");
        c.onCreditRange(0, 1, 20, 30);
        assertThat(heard).containsExactly("epoch 10", "below 20", "below 30");
    }

    @Test
    void when_an_epoch_is_short_of_one_then_it_holds_progress_back_and_names_its_holders() {
        Completion c = of(Progress.HEWMELD, 3);
        c.onCredit(0, 0, 0, Credit.shareOf(0, 3));
        c.onCreditRange(0, 1, 0, 100);
        c.onEndOfStream(0, 0);
        c.onEndOfStream(0, 1);
        c.onEndOfStream(0, 2);
        assertThat(c.completeBelow()).isEqualTo(0);
        assertThat(c.holders(0, new int[] {0, 3})).containsExactly(2);
        assertThat(c.incompleteAtEnd()).contains("epoch 0 never received all its credit");
    }

    @Test
    void when_two_inputs_run_hew_meld_then_an_epoch_completes_only_once_both_hold_one_whichever_way_it_came() {
        Completion c = of(Progress.HEWMELD, 1, 1);
        c.onCredit(1, 0, 0, Credit.ONE);
        assertThat(heard).isEmpty();
        c.onCredit(0, 0, 0, Credit.ONE);
        assertThat(heard).containsExactly("epoch 0", "below 10");
        c.onCredit(0, 0, 10, Credit.ONE);
        c.onCreditRange(1, 0, 10, 30);
        assertThat(heard).containsExactly("epoch 0", "below 10", "epoch 10", "below 20");
    }

    @Test
    void when_one_producer_of_the_waiting_input_releases_a_range_then_the_epoch_still_waits_for_the_others() {
        Completion c = of(Progress.HEWMELD, 1, 2);
        c.onCredit(0, 0, 10, Credit.ONE); // complete on input 0; input 1 has two producers
        assertThat(heard).isEmpty();
        c.onCreditRange(1, 0, 0, 40); // one of input 1's producers had nothing: its share only
        assertThat(heard).as("half of input 1's credit must not fire the epoch").isEmpty();
        c.onCreditRange(1, 1, 0, 20);
        assertThat(heard).containsExactly("epoch 10", "below 20");
    }

    @Test
    void when_snapshotted_and_restored_then_the_strategy_continues_identically() {
        for (Progress p : Progress.values()) {
            Completion c = of(p, 2);
            if (p == Progress.WATERMARK) {
                c.onWatermark(0, 0, 40);
            } else {
                c.onCredit(0, 0, 0, Credit.shareOf(0, 2));
            }
            WireOut out = new WireOut(64);
            c.snapshotTo(out);
            heard.clear();
            Completion restored = of(p, 2);
            restored.restoreFrom(new WireIn(out.buffer(), -1));
            if (p == Progress.WATERMARK) {
                restored.onWatermark(0, 1, 40);
                assertThat(heard).as("%s", p).containsExactly("below 41");
            } else {
                restored.onCredit(0, 1, 0, Credit.shareOf(1, 2));
                assertThat(heard).as("%s", p).containsExactly("epoch 0", "below 10");
            }
            heard.clear();
        }
    }
}
