package air.runtime.impl.progress;

import static org.assertj.core.api.Assertions.assertThat;

import air.hewmeld.Credit;
import air.runtime.api.WindowDefinition;
import air.runtime.impl.ops.TestFrames;
import air.runtime.impl.routing.WindowRouter;
import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProgressReleaseTest {

    private final WindowDefinition tumbling = new WindowDefinition(10, 10);
    private final List<String> shipped = new ArrayList<>();
    private final ProgressRelease.Frames frames = new ProgressRelease.Frames() {
        @Override
        public void shipBefore(long boundary) {
            shipped.add("before " + boundary);
        }

        @Override
        public void ship(long start) {
            shipped.add("frame " + start);
        }
    };

    @Test
    void when_the_watermark_crosses_a_frame_boundary_then_earlier_frames_ship_and_one_watermark_goes_to_everyone() {
        ProgressRelease release = ProgressRelease.of(Progress.WATERMARK, tumbling, WindowRouter.of(Routing.KEY, tumbling), 0, 1);
        TestFrames.RecordingOutput out = new TestFrames.RecordingOutput(0, 2);
        assertThat(release.advance(14, frames, out)).isEqualTo(14);
        assertThat(release.advance(17, frames, out)).isEqualTo(17); // same boundary: nothing sent
        assertThat(shipped).containsExactly("before 10");
        assertThat(out.sent).containsExactly("0:Watermark[producer=0, watermark=9]", "1:Watermark[producer=0, watermark=9]");
    }

    @Test
    void when_epochs_are_released_under_hew_meld_then_each_with_data_ships_with_its_credit_and_empty_runs_go_as_ranges() {
        ProgressRelease release = ProgressRelease.of(Progress.HEWMELD, tumbling, WindowRouter.of(Routing.AIR, tumbling), 1, 2);
        TestFrames.RecordingOutput out = new TestFrames.RecordingOutput(1, 3);
        release.onFrameOpened(20);
        long late = release.advance(35, frames, out);
        assertThat(shipped).containsExactly("frame 20");
        long share = Credit.shareOf(1, 2);
        // the epochs before 20 had no data: one range to everyone; epoch 20's credit to its owner only (window 2 mod 3)
        String range = "CreditRange[producer=1, from=" + Long.MIN_VALUE + ", to=20]";
        assertThat(out.sent).containsExactly("0:" + range, "1:" + range, "2:" + range,
                "2:Credit[producer=1, epoch=20, amount=" + share + "]");
        // epoch 30 is still open at watermark 35: the frontier is 30, so records at or below 29 are late
        assertThat(late).isEqualTo(29);
    }
}
