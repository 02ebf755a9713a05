package air.runtime.impl.routing;

import static org.assertj.core.api.Assertions.assertThat;

import air.runtime.api.WindowDefinition;
import air.runtime.impl.ops.KeyedFrame;
import air.runtime.impl.ops.TestFrames;
import air.runtime.impl.shuffle.ShuffleItem;
import air.runtime.plan.Routing;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class WindowRouterTest {

    private final WindowDefinition tumbling = new WindowDefinition(10, 10);
    private final WindowDefinition sliding = new WindowDefinition(30, 10);

    @Test
    void when_routing_by_key_then_each_keys_partial_goes_to_the_owner_of_its_hash_and_credit_to_everyone() {
        WindowRouter router = WindowRouter.of(Routing.KEY, tumbling);
        TestFrames.RecordingOutput out = new TestFrames.RecordingOutput(0, 4);
        KeyedFrame<Long> frame = TestFrames.frame(1, 2, 3, 4, 5, 6, 7, 8);
        assertThat(router.ship(20, frame, out)).isEqualTo(8);
        assertThat(frame.isEmpty()).isTrue();
        for (String sent : out.sent) {
            int d = Integer.parseInt(sent.substring(0, sent.indexOf(':')));
            long owned = IntStream.rangeClosed(1, 8).filter(k -> KeyRouting.ownerOf((long) k, 4) == d).count();
            assertThat(sent).isEqualTo(d + ":frame@20x" + owned);
        }
        out.sent.clear();
        router.sendCredit(new ShuffleItem.Credit(0, 20, 5), out);
        assertThat(out.sent).hasSize(4);
        assertThat(router.emits(20, 3, 4)).isTrue();
    }

    @Test
    void when_routing_by_window_then_a_tumbling_frame_goes_whole_to_the_windows_owner_with_its_credit() {
        WindowRouter router = WindowRouter.of(Routing.AIR, tumbling);
        TestFrames.RecordingOutput out = new TestFrames.RecordingOutput(0, 4);
        assertThat(router.ship(70, TestFrames.frame(1, 2, 3), out)).isEqualTo(3);
        router.sendCredit(new ShuffleItem.Credit(0, 70, 5), out);
        assertThat(out.sent).containsExactly("3:frame@70x3", "3:Credit[producer=0, epoch=70, amount=5]"); // window 7 mod 4
        assertThat(router.emits(70, 3, 4)).isTrue();
        assertThat(router.emits(70, 2, 4)).isFalse();
    }

    @Test
    void when_routing_a_sliding_frame_by_window_then_every_owner_of_a_window_containing_it_gets_a_copy() {
        WindowRouter router = WindowRouter.of(Routing.AIR, sliding);
        TestFrames.RecordingOutput out = new TestFrames.RecordingOutput(0, 4);
        KeyedFrame<Long> frame = TestFrames.frame(1, 1, 2);
        // frame [50, 60) is in the windows starting at 50, 40 and 30: owners 5, 4 and 3 mod 4
        assertThat(router.ship(50, frame, out)).isEqualTo(6);
        assertThat(out.sent).containsExactlyInAnyOrder("1:frame@50x2", "0:frame@50x2", "3:frame@50x2");
        assertThat(frame.isEmpty()).isTrue();
    }
}
