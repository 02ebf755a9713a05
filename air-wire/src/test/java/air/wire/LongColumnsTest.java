package air.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Packed long columns: round trips of every shape, the bytes they save, and garbage refused with a reason. */
class LongColumnsTest {

    private static long[][] roundTrip(int from, int n, long[]... columns) {
        WireOut out = new WireOut(16);
        LongColumns.write(out, from, n, columns);
        WireIn in = new WireIn(out.buffer(), 3);
        long[][] back = LongColumns.read(in, columns.length);
        assertThat(in.remaining()).isZero();
        return back;
    }

    @Test
    void everyColumnComesBack() {
        Random random = new Random(17);
        long[] sorted = new long[1000];
        long[] small = new long[1000];
        long[] wild = new long[1000];
        for (int i = 0; i < 1000; i++) {
            sorted[i] = 1_700_000_000_000L + (i / 300) * 10_000L;
            small[i] = random.nextInt(100) - 50;
            wild[i] = random.nextLong();
        }
        wild[3] = Long.MIN_VALUE;
        wild[4] = Long.MAX_VALUE;
        long[][] back = roundTrip(0, 1000, sorted, small, wild);
        assertThat(back[0]).isEqualTo(sorted);
        assertThat(back[1]).isEqualTo(small);
        assertThat(back[2]).isEqualTo(wild);
        long[][] slice = roundTrip(250, 500, sorted, small);
        assertThat(slice[0]).isEqualTo(Arrays.copyOfRange(sorted, 250, 750));
        assertThat(slice[1]).isEqualTo(Arrays.copyOfRange(small, 250, 750));
        assertThat(roundTrip(5, 1, sorted)[0]).containsExactly(sorted[5]);
        long[][] none = roundTrip(0, 0, sorted, small);
        assertThat(none[0]).isEmpty();
        assertThat(none[1]).isEmpty();
    }

    @Test
    void orderedRowsTakeAFewBytesAValue() {
        int n = 10_000;
        long[] window = new long[n];
        long[] count = new long[n];
        for (int i = 0; i < n; i++) {
            window[i] = 1_700_000_000_000L + (i / 5000) * 10_000L;
            count[i] = i % 40;
        }
        WireOut out = new WireOut(16);
        LongColumns.write(out, 0, n, window, count);
        assertThat(out.size()).isLessThan(3 * n + 40); // 2 bytes of window steps, 1 of count steps, against 16
    }

    @Test
    void garbageIsRefusedWithAReason() {
        WireOut out = new WireOut(16);
        LongColumns.write(out, 0, 3, new long[] {1, 2, 3}, new long[] {4, 5, 6});
        byte[] good = new byte[out.size()];
        out.buffer().get(good);

        assertThatThrownBy(() -> LongColumns.read(new WireIn(ByteBuffer.wrap(good), 3), 3)).isInstanceOf(FrameException.class)
                .hasMessageContaining("2 columns, where 3 columns were expected").hasMessageContaining("peer 3");
        byte[] width = good.clone();
        width[4 + 1 + 8] = 9; // the first column's width
        assertThatThrownBy(() -> LongColumns.read(new WireIn(ByteBuffer.wrap(width), 3), 2)).isInstanceOf(FrameException.class)
                .hasMessageContaining("9 bytes");
        byte[] rows = good.clone();
        rows[3] = 100; // 100 rows where 3 were written
        assertThatThrownBy(() -> LongColumns.read(new WireIn(ByteBuffer.wrap(rows), 3), 2)).isInstanceOf(FrameException.class)
                .hasMessageContaining("does not fit");
        byte[] negative = good.clone();
        negative[0] = (byte) 0x80;
        assertThatThrownBy(() -> LongColumns.read(new WireIn(ByteBuffer.wrap(negative), 3), 2)).isInstanceOf(FrameException.class);
        byte[] cut = Arrays.copyOf(good, good.length - 1);
        assertThatThrownBy(() -> LongColumns.read(new WireIn(ByteBuffer.wrap(cut), 3), 2)).isInstanceOf(FrameException.class);
    }
}
