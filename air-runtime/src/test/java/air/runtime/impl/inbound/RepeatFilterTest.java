package air.runtime.impl.inbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.impl.ops.TestFrames;
import air.runtime.impl.shuffle.RecordBatch;
import air.runtime.impl.shuffle.ShuffleItem;
import air.wire.WireIn;
import air.wire.WireOut;
import org.junit.jupiter.api.Test;

class RepeatFilterTest {

    @Test
    void when_a_producer_repeats_frames_or_credit_then_only_new_ones_pass() {
        RepeatFilter filter = new RepeatFilter(2, 10);
        assertThat(filter.fresh(TestFrames.partial(0, 10, 1))).isNotNull();
        assertThat(filter.fresh(TestFrames.partial(0, 10, 1))).isNull();
        assertThat(filter.fresh(TestFrames.partial(0, 0, 1))).isNull();
        assertThat(filter.fresh(TestFrames.partial(1, 0, 1))).isNotNull(); // marks are per producer
        assertThat(filter.fresh(new ShuffleItem.Credit(0, 10, 3))).isNotNull();
        assertThat(filter.fresh(new ShuffleItem.Credit(0, 10, 3))).isNull();
        assertThat(filter.repeats()).isEqualTo(3);
    }

    @Test
    void when_a_producer_repeats_record_batches_then_only_higher_numbers_pass() {
        RepeatFilter filter = new RepeatFilter(2, 1);
        assertThat(filter.fresh(TestFrames.batch(0, 0))).isNotNull();
        assertThat(filter.fresh(TestFrames.batch(0, 1))).isNotNull();
        assertThat(filter.fresh(TestFrames.batch(0, 2))).isNotNull();
        assertThat(filter.fresh(TestFrames.batch(0, 2))).isNull();
        assertThat(filter.fresh(TestFrames.batch(0, 1))).isNull();
        assertThat(filter.fresh(TestFrames.batch(1, 0))).isNotNull(); // numbers are per producer
        WireOut out = new WireOut(64);
        filter.snapshotTo(out);
        RepeatFilter restored = new RepeatFilter(2, 1);
        restored.restoreFrom(new WireIn(out.buffer(), -1));
        assertThat(restored.fresh(TestFrames.batch(0, 2))).isNull();
        assertThat(restored.fresh(TestFrames.batch(0, 3))).isNotNull();
    }

    @Test
    void when_records_are_missing_between_what_was_taken_and_a_replay_then_the_job_fails_saying_so() {
        RepeatFilter filter = new RepeatFilter(1, 1);
        filter.fresh(TestFrames.batch(0, 0, 2)); // records 0, 1
        assertThatThrownBy(() -> filter.fresh(TestFrames.batch(0, 5, 1))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("records 2 .. 4 of producer 0 never arrived");
    }

    @Test
    void when_a_replay_cuts_its_batches_differently_then_only_the_records_not_yet_taken_pass() {
        RepeatFilter filter = new RepeatFilter(1, 1);
        filter.fresh(TestFrames.batch(0, 0, 3)); // records 0, 1, 2
        ShuffleItem rest = filter.fresh(TestFrames.batch(0, 1, 4)); // a replay from record 1: 1, 2 again, then 3, 4
        assertThat(rest).isInstanceOf(RecordBatch.class);
        assertThat(((RecordBatch) rest).firstIndex()).isEqualTo(3);
        assertThat(((RecordBatch) rest).size()).isEqualTo(2);
    }

    @Test
    void when_a_credit_range_overlaps_what_was_taken_then_it_is_trimmed_to_the_new_part() {
        RepeatFilter filter = new RepeatFilter(1, 10);
        filter.fresh(new ShuffleItem.CreditRange(0, 0, 30));
        assertThat(filter.fresh(new ShuffleItem.CreditRange(0, 10, 30))).isNull();
        assertThat(filter.fresh(new ShuffleItem.CreditRange(0, 20, 50))).isEqualTo(new ShuffleItem.CreditRange(0, 30, 50));
    }

    @Test
    void when_restored_then_the_marks_are_those_of_the_snapshot() {
        RepeatFilter filter = new RepeatFilter(1, 10);
        filter.fresh(TestFrames.partial(0, 20, 1));
        WireOut out = new WireOut(32);
        filter.snapshotTo(out);
        RepeatFilter restored = new RepeatFilter(1, 10);
        restored.restoreFrom(new WireIn(out.buffer(), -1));
        assertThat(restored.fresh(TestFrames.partial(0, 20, 1))).isNull();
        assertThat(restored.fresh(TestFrames.partial(0, 30, 1))).isNotNull();
    }
}
