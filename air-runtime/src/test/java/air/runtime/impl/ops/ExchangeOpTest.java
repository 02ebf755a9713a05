package air.runtime.impl.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.api.Codec;
import air.runtime.impl.shuffle.RecordBatch;
import air.runtime.impl.shuffle.ShuffleItem;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.runtime.plan.OperatorInfo;
import air.wire.FrameException;
import air.wire.WireIn;
import air.wire.WireOut;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The sending end of an exchange: spreading, batching, markers behind the records, and the wire form of its batches. */
class ExchangeOpTest {

    private static final OperatorInfo INFO = OperatorInfo.of("rebalance", "ExchangeOpTest.java:1");
    private static final Codec<String> STRINGS = new Codec<>() {
        @Override public void write(String value, WireOut out) { out.putString(value); }
        @Override public String read(WireIn in) { return in.getString(); }
    };

    private static String batches(TestFrames.RecordingOutput out) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < out.items.size(); i++) {
            ShuffleItem item = out.items.get(i);
            String d = out.sent.get(i).substring(0, out.sent.get(i).indexOf(':'));
            sb.append(sb.isEmpty() ? "" : " ").append(d).append(':');
            if (item instanceof RecordBatch b) {
                sb.append('#').append(b.firstIndex).append(List.of(b.records).subList(0, b.size)).append('@').append(b.timestamps[0]);
            } else {
                sb.append(item.getClass().getSimpleName());
            }
        }
        return sb.toString();
    }

    @Test
    void a_rebalance_deals_records_round_robin_in_numbered_batches_with_markers_behind_them() {
        TestFrames.RecordingOutput out = new TestFrames.RecordingOutput(3, 2);
        ExchangeOp<String> op = new ExchangeOp<>(INFO, false, null, out);
        op.accept(10, "a");
        op.accept(11, "b");
        op.accept(12, "c");
        assertThat(out.items).as("nothing before the end of the batch").isEmpty();
        op.onEndOfBatch();
        assertThat(batches(out)).isEqualTo("0:#0[a, c]@10 1:#0[b]@11");
        op.accept(13, "d");
        op.onWatermark(12);
        op.onWatermark(12); // not again
        op.emitBarrier(1);
        op.onComplete();
        assertThat(batches(out)).isEqualTo("0:#0[a, c]@10 1:#0[b]@11 1:#1[d]@13 0:Watermark 1:Watermark 0:Barrier 1:Barrier"
                + " 0:EndOfStream 1:EndOfStream");
        assertThat(out.items).filteredOn(i -> i instanceof ShuffleItem.Watermark).allMatch(i -> i.producer() == 3);
    }

    @Test
    void a_broadcast_sends_every_record_to_every_destination_and_a_restored_one_goes_on_numbering() {
        TestFrames.RecordingOutput out = new TestFrames.RecordingOutput(0, 3);
        ExchangeOp<String> op = new ExchangeOp<>(INFO, true, null, out);
        op.accept(5, "x");
        op.onEndOfBatch();
        assertThat(batches(out)).isEqualTo("0:#0[x]@5 1:#0[x]@5 2:#0[x]@5");
        WireOut snapshot = new WireOut(64);
        op.snapshotTo(snapshot, 1);
        TestFrames.RecordingOutput again = new TestFrames.RecordingOutput(0, 3);
        ExchangeOp<String> restored = new ExchangeOp<>(INFO, true, null, again);
        restored.restoreFrom(new WireIn(snapshot.buffer(), -1));
        restored.accept(6, "y");
        restored.onEndOfBatch();
        assertThat(batches(again)).isEqualTo("0:#1[y]@6 1:#1[y]@6 2:#1[y]@6");
    }

    @Test
    void records_still_buffered_when_a_barrier_is_aligned_are_numbered_into_the_snapshot() {
        // behind a shuffle a capture can find records in the buffers: the barrier that follows sends them first
        TestFrames.RecordingOutput out = new TestFrames.RecordingOutput(0, 1);
        ExchangeOp<String> op = new ExchangeOp<>(INFO, false, null, out);
        op.accept(1, "a");
        op.accept(2, "b");
        WireOut snapshot = new WireOut(64);
        op.snapshotTo(snapshot, 1);
        op.emitBarrier(1);
        assertThat(batches(out)).isEqualTo("0:#0[a, b]@1 0:Barrier");
        TestFrames.RecordingOutput again = new TestFrames.RecordingOutput(0, 1);
        ExchangeOp<String> restored = new ExchangeOp<>(INFO, false, null, again);
        restored.restoreFrom(new WireIn(snapshot.buffer(), -1));
        restored.accept(3, "c");
        restored.onEndOfBatch();
        assertThat(batches(again)).as("numbered after the records the barrier sent").isEqualTo("0:#2[c]@3");
    }

    @Test
    void record_batches_cross_the_wire_and_a_short_or_lying_one_is_refused_naming_the_peer() {
        ShuffleItemCodec codec = ShuffleItemCodec.forRecords(INFO, STRINGS);
        RecordBatch b = new RecordBatch(1, 7, new long[] {3, 4}, new Object[] {"p", "q"}, 2);
        WireOut out = new WireOut(64);
        codec.write(2, b, out);
        ShuffleItemCodec.Addressed a = codec.read(new WireIn(out.buffer(), 4), 2, 3);
        RecordBatch back = (RecordBatch) a.item();
        assertThat(a.destination()).isEqualTo(2);
        assertThat(back.firstIndex()).isEqualTo(7);
        assertThat(List.of(back.records).subList(0, back.size)).containsExactly("p", "q");
        assertThat(back.timestamps).containsExactly(3, 4);

        ByteBuffer written = out.buffer();
        byte[] lying = new byte[written.remaining()];
        written.get(lying);
        lying[1 + 4 + 4 + 8 + 3] = 100; // the record count's low byte: 100 records in a few bytes
        assertThatThrownBy(() -> codec.read(new WireIn(ByteBuffer.wrap(lying), 4), 2, 3)).isInstanceOf(FrameException.class)
                .hasMessageContaining("peer 4").hasMessageContaining("count 100 does not fit");
    }
}
