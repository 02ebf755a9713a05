package air.runtime.impl.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.runtime.plan.OperatorInfo;
import air.wire.FrameException;
import air.wire.WireIn;
import air.wire.WireOut;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.Test;

/**
 * Packed partials ({@link ShuffleItemCodec#packing}): long keys and one-long accumulators, each
 * column in the fewest bytes that hold it. Round trips over every width and sign, the size they
 * save, a frame's snapshot read back, and garbage: a packed partial for a codec that does not
 * pack, impossible widths, a count larger than the bytes.
 */
class PackedPartialTest {

    private static final OperatorInfo INFO = OperatorInfo.of("max", "PackedPartialTest.java:1");
    private static final ShuffleItemCodec PACKING = ShuffleItemCodec.packing(INFO, new LongValueFrameTest.Max());

    private static FrameAccumulators partial(long[] keys, long[] values) {
        FrameAccumulators p = new FrameAccumulators(3, 500, keys.clone(), null, keys.length);
        for (int i = 0; i < keys.length; i++) {
            p.accumulators[i] = new long[] {values[i]};
        }
        p.size = keys.length;
        return p;
    }

    private static FrameAccumulators roundTrip(FrameAccumulators p, int destination) {
        WireOut out = new WireOut(16);
        PACKING.write(destination, p, out);
        ShuffleItemCodec.Addressed back = PACKING.read(new WireIn(out.buffer(), 2), 4, 4);
        assertThat(back.destination()).isEqualTo(destination);
        return (FrameAccumulators) back.item();
    }

    private static void assertSame(FrameAccumulators back, FrameAccumulators p) {
        assertThat(back.producer).isEqualTo(p.producer);
        assertThat(back.frameStart()).isEqualTo(p.frameStart());
        assertThat(back.size).isEqualTo(p.size);
        for (int i = 0; i < p.size; i++) {
            assertThat(back.longKeys[i]).isEqualTo(p.longKeys[i]);
            assertThat(((long[]) back.accumulators[i])[0]).isEqualTo(((long[]) p.accumulators[i])[0]);
        }
    }

    @Test
    void everyWidthAndSignComesBack() {
        Random random = new Random(11);
        for (int bits = 0; bits <= 64; bits++) {
            long[] keys = new long[50];
            long[] values = new long[50];
            for (int i = 0; i < keys.length; i++) {
                long r = bits == 64 ? random.nextLong() : random.nextLong() & ((1L << bits) - 1);
                keys[i] = i % 2 == 0 ? r : -r;
                values[i] = i % 3 == 0 ? -r : r >>> 1;
            }
            FrameAccumulators p = partial(keys, values);
            assertSame(roundTrip(p, 1), p);
        }
        FrameAccumulators extremes = partial(new long[] {Long.MIN_VALUE, Long.MAX_VALUE, 0, -1}, new long[] {Long.MAX_VALUE, Long.MIN_VALUE, -1, 0});
        assertSame(roundTrip(extremes, 0), extremes);
        FrameAccumulators empty = partial(new long[0], new long[0]);
        assertSame(roundTrip(empty, 3), empty);
    }

    @Test
    void smallKeysAndCountsTakeFourBytesAnEntry() {
        int n = 10_000;
        long[] keys = new long[n];
        long[] values = new long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = (i * 104_729L) & ((1 << 20) - 1); // user ids mod 2^20: 21 bits zigzagged, 3 bytes
            values[i] = 1 + i % 60; // counts: 1 byte
        }
        WireOut packed = new WireOut(16);
        PACKING.write(0, partial(keys, values), packed);
        WireOut plain = new WireOut(16);
        new ShuffleItemCodec(INFO, new LongValueFrameTest.Max().accumulatorCodec()).write(0, partial(keys, values), plain);
        assertThat(packed.size()).isLessThan(4 * n + 40);
        assertThat(plain.size()).isGreaterThan(16 * n);
    }

    @Test
    void aFrameSnapshotIsPackedAndReadBack() {
        KeyedFrame<long[]> frame = new KeyedFrameFactory<long[]>(LongValueFrame.class.getConstructors()[0], INFO,
                (ToLongFunction<long[]>) r -> r[0], new LongValueFrameTest.Max()).create();
        Random random = new Random(5);
        for (int i = 0; i < 5_000; i++) {
            frame.accumulate(new long[] {random.nextInt(1 << 20), random.nextInt(100) - 50});
        }
        WireOut out = new WireOut(16);
        FrameSnapshots.write(out, 70, frame, PACKING);
        assertThat(out.size()).isLessThan(5 * frame.size() + 40);
        FrameAccumulators back = FrameSnapshots.read(new WireIn(out.buffer(), -1), PACKING);
        FrameAccumulators view = frame.view(70);
        assertThat(back.frameStart()).isEqualTo(70);
        assertThat(back.size).isEqualTo(view.size);
        for (int i = 0; i < view.size; i++) {
            assertThat(back.longKeys[i]).isEqualTo(view.longKeys[i]);
            assertThat(((long[]) back.accumulators[i])[0]).isEqualTo(((long[]) view.accumulators[i])[0]);
        }
    }

    /**
     * A frame written again and again (a snapshot a second) reuses the widths its last snapshot
     * needed; a key or a value that outgrows them (a new key of more bytes, a count crossing a byte)
     * is still written whole, and every snapshot reads back as the frame it was.
     */
    @Test
    void laterSnapshotsOfAFrameHoldKeysAndValuesThatOutgrewTheWidthsBefore() {
        KeyedFrame<long[]> frame = new KeyedFrameFactory<long[]>(LongValueFrame.class.getConstructors()[0], INFO,
                (ToLongFunction<long[]>) r -> r[0], new LongValueFrameTest.Max()).create();
        long[][] rounds = {
            {1, 5}, {2, 100}, // one-byte keys and values
            {3, 70_000}, // a value of three bytes
            {1L << 40, 7}, // a key of six
            {-(1L << 50), Long.MIN_VALUE}, // every width at its largest
            {4, 9},
        };
        int widest = 0;
        for (long[] r : rounds) {
            frame.accumulate(r);
            WireOut out = new WireOut(16);
            FrameSnapshots.write(out, 90, frame, PACKING);
            widest = Math.max(widest, out.size());
            FrameAccumulators back = FrameSnapshots.read(new WireIn(out.buffer(), -1), PACKING);
            FrameAccumulators view = frame.view(90);
            assertThat(back.size).isEqualTo(view.size);
            for (int i = 0; i < view.size; i++) {
                assertThat(back.longKeys[i]).isEqualTo(view.longKeys[i]);
                assertThat(((long[]) back.accumulators[i])[0]).as("key %d after %s", view.longKeys[i], Arrays.toString(r))
                        .isEqualTo(((long[]) view.accumulators[i])[0]);
            }
        }
        assertThat(widest).isGreaterThanOrEqualTo(6 * 16);
    }

    @Test
    void garbageIsRefusedNamingWhatIsWrong() {
        WireOut out = new WireOut(16);
        PACKING.write(0, partial(new long[] {1, 2, 3}, new long[] {4, 5, 6}), out);
        byte[] good = new byte[out.size()];
        out.buffer().get(good);

        // a codec that does not pack: its aggregation keeps objects
        ShuffleItemCodec plain = new ShuffleItemCodec(INFO, new LongValueFrameTest.Max().accumulatorCodec());
        assertThatThrownBy(() -> plain.read(new WireIn(ByteBuffer.wrap(good), 1), 4, 4)).isInstanceOf(FrameException.class)
                .hasMessageContaining("packed").hasMessageContaining("max");

        int widths = 1 + 4 + 4 + 8 + 4; // kind, destination, producer, frame start, count
        for (int bad : List.of(0, 9, -1)) {
            byte[] b = good.clone();
            b[widths] = (byte) bad;
            assertThatThrownBy(() -> PACKING.read(new WireIn(ByteBuffer.wrap(b), 1), 4, 4)).isInstanceOf(FrameException.class)
                    .hasMessageContaining("packed partial");
        }
        byte[] tooMany = good.clone();
        tooMany[widths - 1] = 7; // 7 entries where 3 were written
        assertThatThrownBy(() -> PACKING.read(new WireIn(ByteBuffer.wrap(tooMany), 1), 4, 4)).isInstanceOf(FrameException.class)
                .hasMessageContaining("does not fit");
        byte[] cut = Arrays.copyOf(good, good.length - 1);
        assertThatThrownBy(() -> PACKING.read(new WireIn(ByteBuffer.wrap(cut), 1), 4, 4)).isInstanceOf(FrameException.class);
    }

    @Test
    void widthOfIsTheFewestBytes() {
        assertThat(WireOut.widthOf(0)).isEqualTo(1);
        assertThat(WireOut.widthOf(0xff)).isEqualTo(1);
        assertThat(WireOut.widthOf(0x100)).isEqualTo(2);
        assertThat(WireOut.widthOf((1L << 21) - 1)).isEqualTo(3);
        assertThat(WireOut.widthOf(1L << 56)).isEqualTo(8);
        assertThat(WireOut.widthOf(-1)).isEqualTo(8);
        assertThatThrownBy(() -> new WireOut(8).putLong(1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new WireOut(8).putLong(1, 9)).isInstanceOf(IllegalArgumentException.class);
    }
}
