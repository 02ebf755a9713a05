package air.runtime.impl.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Incremental snapshots of window frames: touched frames whole, the others by their start, and back. */
class FrameChangesTest {

    private static final ShuffleItemCodec CODEC = new ShuffleItemCodec(TestFrames.INFO, null);

    private static WireIn written(FrameChanges changes, long[] starts, List<KeyedFrame<Long>> frames) {
        WireOut out = new WireOut(64);
        changes.write(out, starts, frames, CODEC);
        return new WireIn(out.buffer(), -1);
    }

    private static long count(KeyedFrame<Long> frame, long key) {
        FrameAccumulators p = frame.view(0);
        for (int i = 0; i < p.size; i++) {
            if (p.longKeys[i] == key) {
                return ((long[]) p.accumulators[i])[0];
            }
        }
        return 0;
    }

    @Test
    void a_touched_frame_is_written_whole_an_untouched_one_by_its_start_and_a_write_forgets_what_was_touched() {
        KeyedFrame<Long> older = TestFrames.frame(1, 2);
        KeyedFrame<Long> newer = TestFrames.frame(3, 3);
        FrameChanges changes = new FrameChanges();
        changes.touched(10);

        List<FrameChanges.Entry> first = FrameChanges.read(written(changes, new long[] {0, 10}, List.of(older, newer)), CODEC);
        assertThat(first).extracting(FrameChanges.Entry::start).containsExactly(0L, 10L);
        assertThat(first.get(0).whole()).as("untouched: its start only").isNull();
        assertThat(first.get(1).whole()).isNotNull();
        KeyedFrame<Long> restored = FrameChanges.restored(first.get(1), null, TestFrames.factory(), TestFrames.INFO);
        assertThat(count(restored, 3)).isEqualTo(2);
        assertThat(FrameChanges.restored(first.get(0), older, TestFrames.factory(), TestFrames.INFO)).isSameAs(older);

        List<FrameChanges.Entry> second = FrameChanges.read(written(changes, new long[] {0, 10}, List.of(older, newer)), CODEC);
        assertThat(second).allMatch(e -> e.whole() == null);
    }

    @Test
    void a_frame_written_whole_replaces_the_earlier_one_rather_than_adding_to_it() {
        FrameChanges changes = new FrameChanges();
        changes.touched(0);
        KeyedFrame<Long> now = TestFrames.frame(7, 7, 7);
        FrameChanges.Entry e = FrameChanges.read(written(changes, new long[] {0}, List.of(now)), CODEC).get(0);
        KeyedFrame<Long> before = TestFrames.frame(7, 7);
        assertThat(count(FrameChanges.restored(e, before, TestFrames.factory(), TestFrames.INFO), 7)).isEqualTo(3);
    }

    @Test
    void a_kept_frame_the_checkpoint_before_does_not_hold_is_refused_naming_the_operator() {
        FrameChanges.Entry kept = new FrameChanges.Entry(20, null);
        assertThatThrownBy(() -> FrameChanges.restored(kept, null, TestFrames.factory(), TestFrames.INFO))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("count").hasMessageContaining("frame 20");
    }

    @Test
    void an_entry_of_unknown_kind_is_malformed() {
        WireOut out = new WireOut(16);
        out.putInt(1).putByte(9).putLong(0);
        assertThatThrownBy(() -> FrameChanges.read(new WireIn(out.buffer(), -1), CODEC)).hasMessageContaining("unknown kind 9");
    }

    @Test
    void a_frame_shipped_or_fired_leaves_no_mark_behind() {
        FrameChanges changes = new FrameChanges();
        changes.touched(0);
        changes.gone(0); // shipped; a frame of the same start opened later is touched again when records go into it
        KeyedFrame<Long> reopened = TestFrames.frame(1);
        assertThat(FrameChanges.read(written(changes, new long[] {0}, List.of(reopened)), CODEC).get(0).whole())
                .as("no mark left from the shipped frame").isNull();
    }
}
