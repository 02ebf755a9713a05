package air.runtime.impl.inbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.impl.shuffle.ShuffleItem;
import org.junit.jupiter.api.Test;

class BarrierAlignerTest {

    private final EndOfStreamCounter ends = new EndOfStreamCounter(2);

    @Test
    void when_every_producer_sent_the_barrier_then_the_checkpoint_is_aligned_and_held_items_come_back_in_order() {
        BarrierAligner aligner = new BarrierAligner(2, 0);
        ShuffleItem.Watermark late1 = new ShuffleItem.Watermark(0, 5);
        ShuffleItem.Watermark late2 = new ShuffleItem.Watermark(0, 6);
        aligner.onBarrier(new ShuffleItem.Barrier(0, 1));
        assertThat(aligner.aligned(ends)).isZero();
        assertThat(aligner.holds(late1)).isTrue();
        assertThat(aligner.holds(late2)).isTrue();
        assertThat(aligner.holds(new ShuffleItem.Watermark(1, 5))).isFalse();
        aligner.onBarrier(new ShuffleItem.Barrier(1, 1));
        assertThat(aligner.aligned(ends)).isEqualTo(1);
        assertThat(aligner.releaseHeld()).containsExactly(late1, late2);
        assertThat(aligner.aligned(ends)).isZero(); // now aligning checkpoint 2
        assertThat(aligner.holds(new ShuffleItem.Watermark(0, 7))).isFalse();
    }

    @Test
    void when_restored_then_barriers_continue_after_the_restored_checkpoint_and_older_ones_are_repeats() {
        BarrierAligner aligner = new BarrierAligner(2, 4);
        assertThat(aligner.isRepeat(new ShuffleItem.Barrier(0, 4))).isTrue();
        assertThat(aligner.isRepeat(new ShuffleItem.Barrier(0, 5))).isFalse();
        assertThatThrownBy(() -> aligner.onBarrier(new ShuffleItem.Barrier(0, 6)))
                .hasMessageContaining("barrier 6 from producer 0 after barrier 4");
    }

    @Test
    void when_a_producer_ended_then_it_does_not_hold_the_alignment_back_but_nothing_aligns_without_a_barrier() {
        BarrierAligner aligner = new BarrierAligner(2, 0);
        ends.end(1);
        assertThat(aligner.aligned(ends)).isZero();
        aligner.onBarrier(new ShuffleItem.Barrier(0, 1));
        assertThat(aligner.aligned(ends)).isEqualTo(1);
    }
}
