package air.runtime.impl.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import air.runtime.api.Codec;
import air.runtime.api.LongAggregateOp;
import air.runtime.impl.failure.OperatorFailure;
import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import air.runtime.plan.OperatorInfo;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.Test;

/**
 * The primitive frame of one-long aggregations ({@link LongValueFrame}) against the object frame
 * ({@link LongKeyedFrame}) on the same seeded records: the same results, partials and snapshot
 * bytes; and the check that decides whether an aggregation's codec lets a frame write its values
 * directly, fed codecs that do not.
 */
class LongValueFrameTest {

    private static final OperatorInfo INFO = OperatorInfo.of("max", "LongValueFrameTest.java:1");
    private static final ToLongFunction<long[]> KEY = r -> r[0];

    /** Max of a record's value per key, its accumulator a one-element array written as its eight bytes. */
    static class Max implements LongAggregateOp<long[], long[], Long> {
        @Override public long[] create() { return new long[] {Long.MIN_VALUE}; }
        @Override public void accumulate(long[] acc, long[] item) { acc[0] = Math.max(acc[0], item[1]); }
        @Override public void combine(long[] acc, long[] other) { acc[0] = Math.max(acc[0], other[0]); }
        @Override public Long finish(long[] acc) { return acc[0]; }
        @Override public long identity() { return Long.MIN_VALUE; }
        @Override public long accumulateLong(long value, long[] item) { return Math.max(value, item[1]); }
        @Override public long combineLong(long value, long other) { return Math.max(value, other); }
        @Override public Long finishLong(long value) { return value; }
        @Override public long[] accumulatorOf(long value) { return new long[] {value}; }
        @Override public long valueOf(long[] acc) { return acc[0]; }

        @Override
        public Codec<long[]> accumulatorCodec() {
            return new Codec<>() {
                @Override public void write(long[] v, WireOut out) { out.putLong(v[0]); }
                @Override public long[] read(WireIn in) { return new long[] {in.getLong()}; }
            };
        }
    }

    private static final Max MAX = new Max();

    private static KeyedFrame<long[]> primitive() {
        return new KeyedFrameFactory<long[]>(LongValueFrame.class.getConstructors()[0], INFO, KEY, MAX).create();
    }

    private static KeyedFrame<long[]> objects() {
        return new KeyedFrameFactory<long[]>(LongKeyedFrame.class.getConstructors()[0], INFO, KEY, MAX).create();
    }

    private static List<long[]> records(long seed, int n, int keys) {
        Random random = new Random(seed);
        List<long[]> records = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            records.add(new long[] {random.nextInt(keys), random.nextLong()});
        }
        return records;
    }

    private static KeyedFrame<long[]> fed(KeyedFrame<long[]> frame, List<long[]> records) {
        records.forEach(frame::accumulate);
        return frame;
    }

    /** A partial as key -> value, whatever its order. */
    private static TreeMap<Long, Long> entries(FrameAccumulators p) {
        TreeMap<Long, Long> m = new TreeMap<>();
        for (int i = 0; i < p.size; i++) {
            m.put(p.longKeys[i], ((long[]) p.accumulators[i])[0]);
        }
        return m;
    }

    private static List<String> results(KeyedFrame<long[]> frame) {
        TestFrames.RecordingInlet inlet = new TestFrames.RecordingInlet();
        frame.emitResults(0, 10, inlet);
        return inlet.events.stream().sorted().toList();
    }

    @Test
    void holdsWhatTheObjectFrameHolds() {
        List<long[]> records = records(7, 20_000, 3_000);
        KeyedFrame<long[]> p = fed(primitive(), records);
        KeyedFrame<long[]> o = fed(objects(), records);
        assertThat(p.size()).isEqualTo(o.size()).isEqualTo(entries(o.copyAll(0, 0)).size());
        assertThat(results(p)).isEqualTo(results(o));
        assertThat(entries(p.view(0))).isEqualTo(entries(o.view(0)));

        // drained by owner, merged and combined: the same as the object frame
        FrameAccumulators[] pd = p.drain(1, 0, 3);
        FrameAccumulators[] od = o.drain(1, 0, 3);
        assertThat(p.isEmpty()).isTrue();
        for (int d = 0; d < 3; d++) {
            assertThat(entries(pd[d])).isEqualTo(entries(od[d]));
        }
        KeyedFrame<long[]> merged = primitive();
        KeyedFrame<long[]> mergedObjects = objects();
        for (int d = 0; d < 3; d++) {
            merged.merge(pd[d]);
            mergedObjects.merge(od[d]);
        }
        KeyedFrame<long[]> more = fed(primitive(), records(8, 5_000, 4_000));
        KeyedFrame<long[]> moreObjects = fed(objects(), records(8, 5_000, 4_000));
        more.combineInto(merged);
        moreObjects.combineInto(mergedObjects);
        assertThat(results(merged)).isEqualTo(results(mergedObjects));
        assertThat(more.size()).isEqualTo(moreObjects.size()); // combineInto leaves the source as it was
    }

    /** Sum of a record's value per key: additive, so the primitive frame updates a key in one lookup. */
    static class Sum extends Max {
        @Override public long[] create() { return new long[] {0}; }
        @Override public void accumulate(long[] acc, long[] item) { acc[0] += item[1]; }
        @Override public void combine(long[] acc, long[] other) { acc[0] += other[0]; }
        @Override public long identity() { return 0; }
        @Override public long accumulateLong(long value, long[] item) { return value + item[1]; }
        @Override public long combineLong(long value, long other) { return value + other; }
        @Override public boolean additive() { return true; }
        @Override public long increment(long[] item) { return item[1]; }
    }

    @Test
    void anAdditiveAggregationHoldsWhatTheObjectFrameHolds() {
        Sum sum = new Sum();
        List<long[]> records = records(3, 20_000, 3_000);
        KeyedFrame<long[]> p = fed(new KeyedFrameFactory<long[]>(LongValueFrame.class.getConstructors()[0], INFO, KEY, sum).create(), records);
        KeyedFrame<long[]> o = fed(new KeyedFrameFactory<long[]>(LongKeyedFrame.class.getConstructors()[0], INFO, KEY, sum).create(), records);
        assertThat(results(p)).isEqualTo(results(o));
        KeyedFrame<long[]> merged = new KeyedFrameFactory<long[]>(LongValueFrame.class.getConstructors()[0], INFO, KEY, sum).create();
        KeyedFrame<long[]> mergedObjects = new KeyedFrameFactory<long[]>(LongKeyedFrame.class.getConstructors()[0], INFO, KEY, sum).create();
        for (FrameAccumulators part : p.drain(0, 0, 2)) {
            merged.merge(part);
        }
        for (FrameAccumulators part : o.drain(0, 0, 2)) {
            mergedObjects.merge(part);
        }
        merged.merge(fed(new KeyedFrameFactory<long[]>(LongValueFrame.class.getConstructors()[0], INFO, KEY, sum).create(),
                records(4, 1_000, 5_000)).drainAll(1, 0));
        mergedObjects.merge(fed(new KeyedFrameFactory<long[]>(LongKeyedFrame.class.getConstructors()[0], INFO, KEY, sum).create(),
                records(4, 1_000, 5_000)).drainAll(1, 0));
        fed(new KeyedFrameFactory<long[]>(LongValueFrame.class.getConstructors()[0], INFO, KEY, sum).create(), records(5, 500, 9_000))
                .combineInto(merged);
        fed(new KeyedFrameFactory<long[]>(LongKeyedFrame.class.getConstructors()[0], INFO, KEY, sum).create(), records(5, 500, 9_000))
                .combineInto(mergedObjects);
        assertThat(results(merged)).isEqualTo(results(mergedObjects));
    }

    @Test
    void snapshotIsWhatTheCodecWritesOfItsPartialAndReadsBack() {
        KeyedFrame<long[]> p = fed(primitive(), records(9, 10_000, 2_000));
        ShuffleItemCodec codec = new ShuffleItemCodec(INFO, MAX.accumulatorCodec());
        WireOut direct = new WireOut(16);
        FrameSnapshots.write(direct, 40, p, codec);
        WireOut viaPartial = new WireOut(16);
        codec.write(0, p.view(40), viaPartial);
        assertThat(direct.buffer()).isEqualTo(viaPartial.buffer());

        FrameAccumulators back = FrameSnapshots.read(new WireIn(direct.buffer(), -1), codec);
        assertThat(back.frameStart()).isEqualTo(40);
        assertThat(entries(back)).isEqualTo(entries(p.view(40)));
    }

    @Test
    void valuesAreWrittenDirectlyOnlyWhenTheCodecWritesTheirEightBytes() {
        assertThat(LongValueFrame.holdsLongs(MAX)).isTrue();
        assertThat(LongValueFrame.holdsLongs(new Max() {
            @Override public Codec<long[]> accumulatorCodec() { return null; } // the serializer: its own form
        })).isFalse();
        assertThat(LongValueFrame.holdsLongs(new Max() {
            @Override
            public Codec<long[]> accumulatorCodec() { // an int: four bytes
                return new Codec<>() {
                    @Override public void write(long[] v, WireOut out) { out.putInt((int) v[0]); }
                    @Override public long[] read(WireIn in) { return new long[] {in.getInt()}; }
                };
            }
        })).isFalse();
        assertThat(LongValueFrame.holdsLongs(new Max() {
            @Override
            public Codec<long[]> accumulatorCodec() { // eight bytes, but not the value's
                return new Codec<>() {
                    @Override public void write(long[] v, WireOut out) { out.putLong(~v[0]); }
                    @Override public long[] read(WireIn in) { return new long[] {~in.getLong()}; }
                };
            }
        })).isFalse();
        assertThat(LongValueFrame.holdsLongs(new Max() {
            @Override public long valueOf(long[] acc) { return 0; } // does not give back what it was made of
        })).isFalse();
    }

    @Test
    void aFailingAggregationNamesTheOperator() {
        KeyedFrame<long[]> frame = new KeyedFrameFactory<long[]>(LongValueFrame.class.getConstructors()[0], INFO, KEY, new Max() {
            @Override public long accumulateLong(long value, long[] item) { throw new ArithmeticException("overflow"); }
        }).create();
        assertThatThrownBy(() -> frame.accumulate(new long[] {1, 2})).isInstanceOf(OperatorFailure.class).hasMessageContaining("max");
    }
}
