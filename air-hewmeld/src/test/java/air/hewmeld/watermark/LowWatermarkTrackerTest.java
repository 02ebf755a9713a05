package air.hewmeld.watermark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LowWatermarkTrackerTest {

    @Test
    void combined_watermark_is_the_minimum_over_channels() {
        LowWatermarkTracker t = new LowWatermarkTracker(3);
        assertThat(t.update(0, 10)).isFalse();
        assertThat(t.update(1, 5)).isFalse();
        assertThat(t.combined()).isEqualTo(Long.MIN_VALUE);
        assertThat(t.update(2, 7)).isTrue();
        assertThat(t.combined()).isEqualTo(5);
        assertThat(t.holdingBack()).containsExactly(1);
        assertThat(t.update(1, 20)).isTrue();
        assertThat(t.combined()).isEqualTo(7);
    }

    @Test
    void older_watermarks_are_ignored_and_done_channels_count_as_infinite() {
        LowWatermarkTracker t = new LowWatermarkTracker(2);
        t.update(0, 10);
        t.update(1, 10);
        assertThat(t.update(0, 3)).isFalse();
        assertThat(t.combined()).isEqualTo(10);
        t.markDone(0);
        assertThat(t.allDone()).isFalse();
        t.markDone(1);
        assertThat(t.allDone()).isTrue();
        assertThat(t.holdingBack()).isEmpty();
    }

    @Test
    void matches_a_recomputed_minimum_under_random_updates() {
        Random random = new Random(7);
        for (int run = 0; run < 200; run++) {
            int n = 1 + random.nextInt(6);
            LowWatermarkTracker t = new LowWatermarkTracker(n);
            long[] seen = new long[n];
            Arrays.fill(seen, Long.MIN_VALUE);
            for (int step = 0; step < 50; step++) {
                int c = random.nextInt(n);
                long w = random.nextInt(100);
                t.update(c, w);
                seen[c] = Math.max(seen[c], w);
                long min = Arrays.stream(seen).min().orElseThrow();
                assertThat(t.combined()).isEqualTo(min);
            }
        }
    }

    @Test
    void rejects_no_channels() {
        assertThatThrownBy(() -> new LowWatermarkTracker(0)).hasMessageContaining("channels must be >= 1, was 0");
    }
}
