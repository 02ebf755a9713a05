package air.runtime.impl.ops;

import static org.assertj.core.api.Assertions.assertThat;

import air.runtime.api.AggregateOp;
import air.runtime.api.WindowDefinition;
import air.runtime.api.WindowResult;
import air.runtime.plan.OperatorInfo;
import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FinalWindowOpTest {

    /** Counts what reaches the end of the chain, including how often it was completed. */
    private static final class Tail implements Inlet<WindowResult<?, ?>> {
        final List<WindowResult<?, ?>> results = new ArrayList<>();
        int completions;

        @Override public void accept(long timestamp, WindowResult<?, ?> item) { results.add(item); }
        @Override public void emit(WindowResult<?, ?> item) { results.add(item); }
        @Override public void onWatermark(long watermark) { }
        @Override public void onEndOfBatch() { }
        @Override public void onComplete() { completions++; }
    }

    private static final AggregateOp<Long, long[], Long> COUNT = AggregateOp.of("count", () -> new long[1], (a, x) -> a[0]++,
            (a, b) -> a[0] += b[0], a -> a[0]);

    @Test
    void under_watermarks_an_end_of_stream_behind_the_completing_watermark_does_not_complete_twice() throws Exception {
        OperatorInfo info = OperatorInfo.of("count", "FinalWindowOpTest.java:1");
        KeyedFrameFactory<Long> frames = new KeyedFrameFactory<>(LongKeyedFrame.class.getConstructors()[0], info,
                (java.util.function.ToLongFunction<Long>) x -> x, COUNT);
        Tail tail = new Tail();
        FinalWindowOp<Long> op = new FinalWindowOp<>(info, new WindowDefinition(10, 10), Routing.KEY, Progress.WATERMARK, 0, 1,
                frames, 2, tail);
        // as a checkpoint's alignment can release them: both producers' final watermarks, then their ends of stream
        assertThat(op.onItem(new ShuffleItem.Watermark(0, Long.MAX_VALUE))).isFalse();
        assertThat(op.onItem(new ShuffleItem.Watermark(1, Long.MAX_VALUE))).isTrue();
        assertThat(op.onItem(new ShuffleItem.EndOfStream(0))).isTrue();
        assertThat(op.onItem(new ShuffleItem.EndOfStream(1))).isTrue();
        assertThat(tail.completions).isEqualTo(1);
    }
}
