package air.runtime.impl.ops;

import static org.assertj.core.api.Assertions.assertThat;

import air.wire.WireIn;
import air.wire.WireOut;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Frames in two layers: a whole snapshot and the changes after it restore the same accumulators, and changes are small. */
class LayeredFrameTest {

    private static final ShuffleItemCodec CODEC = new ShuffleItemCodec(TestFrames.INFO, null);
    private static final long START = 10_000;

    private static KeyedFrameFactory<Long> layered() {
        return KeyedFrameFactory.layered(LayeredFrame.class.getConstructors()[0], TestFrames.factory());
    }

    @Test
    void a_whole_snapshot_and_the_changes_after_it_restore_every_count() {
        SplittableRandom random = new SplittableRandom(7);
        KeyedFrame<Long> live = layered().create();
        KeyedFrame<Long> reference = TestFrames.factory().create();
        WireOut whole = new WireOut(64);
        WireOut[] changes = new WireOut[3];
        feed(live, reference, random, 5_000, 1_000);
        FrameSnapshots.write(whole, START, live, CODEC);
        for (int c = 0; c < changes.length; c++) {
            feed(live, reference, random, 500, 1_000 + 100 * c); // a few keys touched per interval, some new
            changes[c] = new WireOut(64);
            live.writeChanges(changes[c], START, CODEC);
        }
        assertThat(changes[0].size()).as("changes hold only the keys touched since").isLessThan(whole.size() / 2);

        KeyedFrame<Long> restored = layered().create();
        restored.merge(FrameSnapshots.read(in(whole), CODEC));
        for (WireOut c : changes) {
            restored.merge(FrameSnapshots.read(in(c), CODEC));
        }
        assertThat(counts(restored)).isEqualTo(counts(reference)).isEqualTo(counts(live));
    }

    @Test
    void changes_after_a_restore_continue_from_the_restored_counts() {
        KeyedFrame<Long> live = layered().create();
        live.accumulate(1L);
        live.accumulate(2L);
        WireOut first = new WireOut(64);
        live.writeChanges(first, START, CODEC);
        live.accumulate(2L);
        WireOut second = new WireOut(64);
        live.writeChanges(second, START, CODEC);
        WireOut nothing = new WireOut(64);
        live.writeChanges(nothing, START, CODEC);

        assertThat(counts(frameOf(first))).isEqualTo(Map.of(1L, 1L, 2L, 1L));
        assertThat(counts(frameOf(second))).as("only key 2 changed, by one").isEqualTo(Map.of(2L, 1L));
        assertThat(counts(frameOf(nothing))).isEmpty();
        assertThat(counts(live)).isEqualTo(Map.of(1L, 1L, 2L, 2L));
    }

    @Test
    void shipping_folds_the_layers_into_one_partial() {
        KeyedFrame<Long> live = layered().create();
        live.accumulate(3L);
        live.writeChanges(new WireOut(64), START, CODEC);
        live.accumulate(3L);
        live.accumulate(4L);
        FramePartial shipped = live.drainAll(0, START);
        assertThat(counts(shipped)).isEqualTo(Map.of(3L, 2L, 4L, 1L));
        assertThat(live.isEmpty()).isTrue();
    }

    private static void feed(KeyedFrame<Long> live, KeyedFrame<Long> reference, SplittableRandom random, int records, int keys) {
        for (int i = 0; i < records; i++) {
            long key = random.nextInt(keys);
            live.accumulate(key);
            reference.accumulate(key);
        }
    }

    private static WireIn in(WireOut out) {
        return new WireIn(out.buffer(), -1);
    }

    private static KeyedFrame<Long> frameOf(WireOut out) {
        KeyedFrame<Long> frame = TestFrames.factory().create();
        frame.merge(FrameSnapshots.read(in(out), CODEC));
        return frame;
    }

    private static Map<Long, Long> counts(KeyedFrame<Long> frame) {
        return counts(frame.copyAll(0, START));
    }

    private static Map<Long, Long> counts(FramePartial partial) {
        Map<Long, Long> out = new HashMap<>();
        for (int i = 0; i < partial.size; i++) {
            out.put(partial.longKeys[i], ((long[]) partial.accumulators[i])[0]);
        }
        return out;
    }
}
