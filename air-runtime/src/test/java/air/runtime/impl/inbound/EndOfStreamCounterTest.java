package air.runtime.impl.inbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.wire.WireIn;
import air.wire.WireOut;
import org.junit.jupiter.api.Test;

class EndOfStreamCounterTest {

    @Test
    void when_every_producer_ended_once_then_all_ended_and_repeats_do_not_count() {
        EndOfStreamCounter ends = new EndOfStreamCounter(2);
        assertThat(ends.end(0)).isTrue();
        assertThat(ends.end(0)).isFalse();
        assertThat(ends.allEnded()).isFalse();
        assertThat(ends.end(1)).isTrue();
        assertThat(ends.allEnded()).isTrue();
    }

    @Test
    void when_a_snapshot_of_another_layout_is_restored_then_it_is_refused_with_both_counts() {
        EndOfStreamCounter ends = new EndOfStreamCounter(3);
        ends.end(2);
        WireOut out = new WireOut(16);
        ends.snapshotTo(out);
        EndOfStreamCounter same = new EndOfStreamCounter(3);
        same.restoreFrom(new WireIn(out.buffer(), 4));
        assertThat(same.ended(2)).isTrue();
        assertThat(same.end(2)).isFalse();
        assertThatThrownBy(() -> new EndOfStreamCounter(2).restoreFrom(new WireIn(out.buffer(), 4)))
                .hasMessageContaining("peer 4").hasMessageContaining("3 producers, this instance has 2");
    }
}
