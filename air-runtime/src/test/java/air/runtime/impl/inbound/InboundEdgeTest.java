package air.runtime.impl.inbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.hewmeld.Credit;
import air.runtime.impl.ops.TestFrames;
import air.runtime.impl.progress.Completion;
import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.ShuffleItem;
import air.runtime.operator.Operator;
import air.runtime.plan.Progress;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class InboundEdgeTest {

    /** Records what the edge lets through, as the operator sees it. */
    static final class RecordingOperator implements Operator {
        final List<String> events = new ArrayList<>();
        long pendingEpoch = Long.MAX_VALUE;
        long items;

        @Override
        public void onItem(int input, Object item) {
            items++;
            events.add("item " + input + " " + TestFrames.describe((ShuffleItem) item));
        }

        @Override
        public void onEpochComplete(long epochStart) {
            events.add("epoch " + epochStart);
        }

        @Override
        public void onProgress(long completeBelow) {
            events.add("progress " + (completeBelow == Long.MAX_VALUE ? "MAX" : completeBelow));
        }

        @Override
        public void onEndOfInput() {
            events.add("end");
        }

        @Override
        public void snapshotTo(WireOut out, long checkpointId) {
            out.putLong(items);
        }

        @Override
        public void restoreFrom(WireIn in) {
            items = in.getLong();
        }

        @Override
        public long oldestPending(long completeBelow) {
            return pendingEpoch;
        }
    }

    private final RecordingOperator op = new RecordingOperator();
    private final TestFrames.RecordingInlet downstream = new TestFrames.RecordingInlet();
    private final List<Long> aligned = new ArrayList<>();

    private InboundEdge edge(Progress progress, int[] inputs, Alignment alignment, RepeatFilter repeats) {
        return new InboundEdge("count@Test", op, downstream, inputs, Completion.of(progress, "count@Test", 10, inputs),
                alignment, repeats, id -> {
                    aligned.add(id);
                    op.events.add("captured " + id);
                });
    }

    private InboundEdge plain(Progress progress, int producers) {
        return edge(progress, new int[] {producers}, Alignment.NONE, null);
    }

    @Test
    void when_the_end_of_stream_follows_the_completing_watermark_then_the_operator_and_downstream_complete_once() {
        InboundEdge edge = plain(Progress.WATERMARK, 2);
        assertThat(edge.accept(new ShuffleItem.Watermark(0, Long.MAX_VALUE))).isFalse();
        assertThat(edge.accept(new ShuffleItem.Watermark(1, Long.MAX_VALUE))).isFalse();
        assertThat(edge.accept(new ShuffleItem.EndOfStream(0))).isFalse();
        assertThat(edge.accept(new ShuffleItem.EndOfStream(1))).isTrue();
        assertThat(edge.accept(new ShuffleItem.EndOfStream(1))).isTrue();
        assertThat(op.events).containsExactly("progress MAX", "end");
        assertThat(downstream.events).containsExactly("watermark " + Long.MAX_VALUE, "complete");
    }

    @Test
    void when_a_producer_repeats_its_end_of_stream_then_it_counts_once() {
        InboundEdge edge = plain(Progress.WATERMARK, 2);
        assertThat(edge.accept(new ShuffleItem.EndOfStream(0))).isFalse();
        assertThat(edge.accept(new ShuffleItem.EndOfStream(0))).isFalse();
        assertThat(op.events).isEmpty();
        assertThat(edge.accept(new ShuffleItem.EndOfStream(1))).isTrue();
        assertThat(op.events).containsExactly("progress MAX", "end");
    }

    @Test
    void when_watermarks_advance_then_progress_is_the_minimum_plus_one_and_downstream_hears_only_growth() {
        InboundEdge edge = plain(Progress.WATERMARK, 2);
        edge.accept(new ShuffleItem.Watermark(0, 19));
        assertThat(op.events).isEmpty();
        edge.accept(new ShuffleItem.Watermark(1, 9));
        edge.accept(new ShuffleItem.Watermark(1, 29));
        assertThat(op.events).containsExactly("progress 10", "progress 20");
        assertThat(downstream.events).containsExactly("watermark 9", "watermark 19");
    }

    @Test
    void when_an_epochs_credit_adds_up_under_hew_meld_then_the_operator_hears_it_before_older_epochs() {
        InboundEdge edge = plain(Progress.HEWMELD, 2);
        edge.accept(TestFrames.partial(0, 0, 1));
        edge.accept(new ShuffleItem.Credit(0, 0, Credit.shareOf(0, 2)));
        edge.accept(TestFrames.partial(1, 10, 2));
        edge.accept(new ShuffleItem.Credit(1, 10, Credit.shareOf(1, 2)));
        edge.accept(new ShuffleItem.Credit(0, 10, Credit.shareOf(0, 2)));
        assertThat(op.events).containsExactly("item 0 frame@0x1", "item 0 frame@10x1", "progress 0", "epoch 10");
        edge.accept(new ShuffleItem.Credit(1, 0, Credit.shareOf(1, 2)));
        assertThat(op.events).endsWith("epoch 0", "progress 20");
        assertThat(downstream.events).containsExactly("watermark -1", "watermark 19");
    }

    @Test
    void when_the_oldest_epoch_waits_then_the_progress_report_names_the_producers_holding_it() {
        InboundEdge edge = plain(Progress.HEWMELD, 3);
        op.pendingEpoch = 0;
        edge.accept(TestFrames.partial(0, 0, 1));
        edge.accept(new ShuffleItem.Credit(0, 0, Credit.shareOf(0, 3)));
        assertThat(edge.progress().oldestOpenEpoch()).isEqualTo(0);
        assertThat(edge.progress().holders()).containsExactly(1, 2);
    }

    @Test
    void when_every_producer_ends_with_an_epoch_short_of_one_then_the_job_fails_naming_the_operator() {
        InboundEdge edge = plain(Progress.HEWMELD, 2);
        edge.accept(TestFrames.partial(0, 0, 1));
        edge.accept(new ShuffleItem.Credit(0, 0, Credit.shareOf(0, 2)));
        edge.accept(new ShuffleItem.EndOfStream(0));
        assertThatThrownBy(() -> edge.accept(new ShuffleItem.EndOfStream(1)))
                .hasMessageContaining("count@Test").hasMessageContaining("epoch 0 never received all its credit");
    }

    @Test
    void when_progress_of_the_other_mode_arrives_then_the_error_names_the_operator_and_the_mode() {
        assertThatThrownBy(() -> plain(Progress.HEWMELD, 1).accept(new ShuffleItem.Watermark(0, 5)))
                .hasMessageContaining("count@Test").hasMessageContaining("under hew-meld progress");
        assertThatThrownBy(() -> plain(Progress.WATERMARK, 1).accept(new ShuffleItem.Credit(0, 0, Credit.ONE)))
                .hasMessageContaining("count@Test").hasMessageContaining("under watermark progress");
    }

    @Test
    void when_a_barrier_arrives_without_checkpoints_then_it_is_a_protocol_error() {
        assertThatThrownBy(() -> plain(Progress.WATERMARK, 1).accept(new ShuffleItem.Barrier(0, 1)))
                .hasMessageContaining("without checkpoints");
    }

    @Test
    void when_one_producer_is_past_a_barrier_then_its_items_wait_until_the_checkpoint_is_captured() {
        InboundEdge edge = edge(Progress.WATERMARK, new int[] {2}, new BarrierAligner(2, 0), new RepeatFilter(2, 10));
        edge.accept(new ShuffleItem.Barrier(0, 1));
        edge.accept(TestFrames.partial(0, 10, 1));
        edge.accept(TestFrames.partial(1, 0, 2));
        assertThat(op.events).containsExactly("item 0 frame@0x1");
        edge.accept(new ShuffleItem.Barrier(1, 1));
        assertThat(op.events).containsExactly("item 0 frame@0x1", "captured 1", "item 0 frame@10x1");
        assertThat(aligned).containsExactly(1L);
    }

    @Test
    void when_an_ended_producer_sends_no_barrier_then_the_others_align_without_it() {
        InboundEdge edge = edge(Progress.WATERMARK, new int[] {2}, new BarrierAligner(2, 0), new RepeatFilter(2, 10));
        edge.accept(new ShuffleItem.EndOfStream(1));
        edge.accept(new ShuffleItem.Barrier(0, 1));
        assertThat(aligned).containsExactly(1L);
    }

    @Test
    void when_a_producer_repeats_what_it_sent_then_the_operator_sees_it_once() {
        InboundEdge edge = edge(Progress.HEWMELD, new int[] {1}, new BarrierAligner(1, 0), new RepeatFilter(1, 10));
        edge.accept(TestFrames.partial(0, 0, 1));
        edge.accept(new ShuffleItem.Barrier(0, 1));
        // replayed from an older position after a takeover
        edge.accept(TestFrames.partial(0, 0, 1));
        edge.accept(new ShuffleItem.Barrier(0, 1));
        edge.accept(new ShuffleItem.Credit(0, 0, Credit.ONE));
        edge.accept(new ShuffleItem.Credit(0, 0, Credit.ONE));
        assertThat(op.events).containsExactly("item 0 frame@0x1", "captured 1", "epoch 0", "progress 10");
        assertThat(edge.repeats()).isEqualTo(2);
    }

    @Test
    void when_two_inputs_run_watermarks_then_progress_waits_for_the_slower_input_and_names_it() {
        InboundEdge edge = edge(Progress.WATERMARK, new int[] {1, 2}, Alignment.NONE, null);
        op.pendingEpoch = 0;
        edge.accept(new ShuffleItem.Watermark(0, 100));
        edge.accept(new ShuffleItem.Watermark(1, 40));
        assertThat(op.events).isEmpty();
        edge.accept(new ShuffleItem.Watermark(2, 50));
        assertThat(op.events).containsExactly("progress 41");
        assertThat(edge.progress().holders()).containsExactly(1); // input 1's producer 0
        edge.accept(TestFrames.partial(2, 0, 7));
        assertThat(op.events).endsWith("item 1 frame@0x1");
    }

    @Test
    void when_two_inputs_run_hew_meld_then_an_epoch_completes_when_both_inputs_hold_one() {
        InboundEdge edge = edge(Progress.HEWMELD, new int[] {1, 1}, Alignment.NONE, null);
        edge.accept(TestFrames.partial(0, 0, 1));
        edge.accept(new ShuffleItem.Credit(0, 0, Credit.ONE));
        assertThat(op.events).containsExactly("item 0 frame@0x1");
        edge.accept(new ShuffleItem.CreditRange(1, 0, 20));
        assertThat(op.events).containsExactly("item 0 frame@0x1", "epoch 0", "progress 10");
        edge.accept(new ShuffleItem.EndOfStream(0));
        assertThat(edge.accept(new ShuffleItem.EndOfStream(1))).isTrue();
        assertThat(op.events).endsWith("progress MAX", "end");
    }

    @Test
    void when_restored_from_a_snapshot_then_the_edge_continues_where_it_was() {
        InboundEdge edge = edge(Progress.WATERMARK, new int[] {2}, new BarrierAligner(2, 0), new RepeatFilter(2, 10));
        edge.accept(TestFrames.partial(0, 0, 1));
        edge.accept(new ShuffleItem.Watermark(0, 9));
        edge.accept(new ShuffleItem.EndOfStream(1));
        WireOut out = new WireOut(64);
        edge.snapshotTo(out, 1);

        RecordingOperator restoredOp = new RecordingOperator();
        TestFrames.RecordingInlet restoredDown = new TestFrames.RecordingInlet();
        InboundEdge restored = new InboundEdge("count@Test", restoredOp, restoredDown, new int[] {2},
                Completion.of(Progress.WATERMARK, "count@Test", 10, new int[] {2}), new BarrierAligner(2, 1), new RepeatFilter(2, 10),
                id -> { });
        restored.restoreFrom(new WireIn(out.buffer(), -1));
        assertThat(restoredOp.items).isEqualTo(1);
        restored.accept(TestFrames.partial(0, 0, 1)); // a repeat of what the snapshot holds
        restored.accept(new ShuffleItem.EndOfStream(1)); // a repeated end
        assertThat(restored.accept(new ShuffleItem.EndOfStream(0))).isTrue();
        assertThat(restoredOp.events).containsExactly("progress MAX", "end");
        assertThat(restoredDown.events).containsExactly("watermark " + Long.MAX_VALUE, "complete");
    }

    @Test
    void when_a_partial_arrives_under_no_fault_tolerance_then_nothing_is_filtered() {
        InboundEdge edge = plain(Progress.WATERMARK, 1);
        FrameAccumulators a = TestFrames.partial(0, 0, 1);
        FrameAccumulators b = TestFrames.partial(0, 0, 2);
        edge.accept(a);
        edge.accept(b);
        assertThat(op.items).isEqualTo(2);
    }
}
