package air.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Percentage.withPercentage;

import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The percentiles of the CHECK lines, the YSB report and the benchmark scripts: nearest rank, n/a for no values. */
class QuantilesTest {

    private static long rank(long[] values, double p) {
        return Quantiles.of(values).at(p);
    }

    @Test
    void nearest_rank_of_one_to_a_hundred() {
        long[] v = LongStream.rangeClosed(1, 100).toArray();
        assertThat(rank(v, 0.50)).isEqualTo(50);
        assertThat(rank(v, 0.95)).isEqualTo(95);
        assertThat(rank(v, 0.99)).isEqualTo(99);
        assertThat(rank(v, 1.00)).isEqualTo(100);
        assertThat(rank(v, 0.001)).isEqualTo(1);
        assertThat(rank(v, 0.0)).isEqualTo(1);
        assertThat(Quantiles.of(v).max()).isEqualTo("100");
    }

    @Test
    void nearest_rank_is_the_smallest_value_with_at_least_p_of_the_values_at_or_below_it() {
        long[] ten = LongStream.rangeClosed(1, 10).map(i -> i * 10).toArray(); // 10, 20, .., 100
        assertThat(rank(ten, 0.50)).isEqualTo(50);
        assertThat(rank(ten, 0.51)).isEqualTo(60);
        assertThat(rank(ten, 0.95)).isEqualTo(100);
        assertThat(rank(ten, 0.99)).isEqualTo(100);
        assertThat(rank(new long[] {3, 9}, 0.50)).isEqualTo(3);
        // exact for every n (values below 131072 are exact in the histogram), never one rank off
        for (int n = 1; n <= 2_000; n++) {
            long[] v = LongStream.rangeClosed(1, n).toArray();
            assertThat(rank(v, 0.50)).as("p50 of 1..%d", n).isEqualTo((50L * n + 99) / 100);
            assertThat(rank(v, 0.95)).as("p95 of 1..%d", n).isEqualTo((95L * n + 99) / 100);
            assertThat(rank(v, 0.99)).as("p99 of 1..%d", n).isEqualTo((99L * n + 99) / 100);
        }
    }

    @Test
    void large_values_are_within_a_hundred_thousandth() {
        long[] nanos = LongStream.rangeClosed(1, 1000).map(i -> i * 1_000_003L).toArray(); // ~1 ms .. ~1 s
        assertThat((double) rank(nanos, 0.50)).isCloseTo(500 * 1_000_003.0, withPercentage(0.001));
        assertThat((double) rank(nanos, 0.99)).isCloseTo(990 * 1_000_003.0, withPercentage(0.001));
    }

    @Test
    void no_values_have_no_percentile_one_value_is_every_percentile_and_unknown_values_are_dropped() {
        assertThat(Quantiles.of().rank(0.50)).isEqualTo("n/a");
        assertThat(Quantiles.of().max()).isEqualTo("n/a");
        for (double p : new double[] {0.0, 0.01, 0.50, 0.95, 0.99, 1.0}) {
            assertThat(Quantiles.of(7).rank(p)).isEqualTo("7");
        }
        Quantiles q = Quantiles.of(5, -1, 2);
        assertThat(q.count()).isEqualTo(2);
        assertThat(q.rank(0.0)).isEqualTo("2");
        assertThat(q.max()).isEqualTo("5");
        assertThatThrownBy(() -> q.at(1.5)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[0, 1]");
    }
}
