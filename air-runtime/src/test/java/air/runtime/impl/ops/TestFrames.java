package air.runtime.impl.ops;

import air.runtime.api.AggregateOp;
import air.runtime.api.WindowResult;
import air.runtime.impl.shuffle.FrameAccumulators;
import air.runtime.impl.shuffle.RecordBatch;
import air.runtime.impl.shuffle.ShuffleItem;
import air.runtime.impl.shuffle.ShuffleOutput;
import air.runtime.plan.OperatorInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;

/** Real frames and partials for tests of the layers around the window operators: counts per long key. */
public final class TestFrames {

    public static final AggregateOp<Long, long[], Long> COUNT = AggregateOp.of("count", () -> new long[1], (a, x) -> a[0]++,
            (a, b) -> a[0] += b[0], a -> a[0]);
    public static final OperatorInfo INFO = OperatorInfo.of("count", "TestFrames.java:1");

    private TestFrames() {
    }

    public static KeyedFrameFactory<Long> factory() {
        return new KeyedFrameFactory<>(LongKeyedFrame.class.getConstructors()[0], INFO,
                (ToLongFunction<Long>) x -> x, COUNT);
    }

    /** A frame holding one record per given key (a key given twice counts 2). */
    public static KeyedFrame<Long> frame(long... keys) {
        KeyedFrame<Long> frame = factory().create();
        for (long k : keys) {
            frame.accumulate(k);
        }
        return frame;
    }

    /** The partial a producer sends of a frame with these keys. */
    public static FrameAccumulators partial(int producer, long frameStart, long... keys) {
        return frame(keys).drainAll(producer, frameStart);
    }

    /** A producer's record number {@code index} on an exchange edge, alone in a batch. */
    public static RecordBatch batch(int producer, long index) {
        return batch(producer, index, 1);
    }

    /** A producer's records {@code first .. first + n - 1} on an exchange edge, in one batch. */
    public static RecordBatch batch(int producer, long first, int n) {
        long[] times = new long[n];
        Object[] records = new Object[n];
        for (int i = 0; i < n; i++) {
            times[i] = first + i;
            records[i] = "r" + (first + i);
        }
        return new RecordBatch(producer, first, times, records, n);
    }

    /** A destination of a shuffle that records what it is sent, as "d:item". */
    public static final class RecordingOutput implements ShuffleOutput {
        public final List<String> sent = new ArrayList<>();
        public final List<ShuffleItem> items = new ArrayList<>();
        private final int producer;
        private final int destinations;

        public RecordingOutput(int producer, int destinations) {
            this.producer = producer;
            this.destinations = destinations;
        }

        @Override
        public int producer() {
            return producer;
        }

        @Override
        public int destinations() {
            return destinations;
        }

        @Override
        public void send(int destination, ShuffleItem item) {
            items.add(item);
            sent.add(destination + ":" + describe(item));
        }
    }

    /** A short stable description of an item: "frame@10x2" (start, entries), or the record's own form. */
    public static String describe(ShuffleItem item) {
        return item instanceof FrameAccumulators f ? "frame@" + f.frameStart() + "x" + f.size() : item.toString();
    }

    /** The end of a chain: records results, watermarks and completions. */
    public static final class RecordingInlet implements Inlet<WindowResult<?, ?>> {
        public final List<String> events = new ArrayList<>();

        @Override
        public void accept(long timestamp, WindowResult<?, ?> item) {
            events.add("result " + item);
        }

        @Override
        public void emit(WindowResult<?, ?> item) {
            events.add("result " + item);
        }

        @Override
        public void onWatermark(long watermark) {
            events.add("watermark " + watermark);
        }

        @Override
        public void onEndOfBatch() {
        }

        @Override
        public void onComplete() {
            events.add("complete");
        }
    }
}
