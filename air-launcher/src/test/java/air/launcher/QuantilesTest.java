package air.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** The percentiles of the CHECK lines: nearest rank, n/a for no values. */
class QuantilesTest {

    @Test
    void nearest_rank_of_known_values() {
        long[] v = LongStream.rangeClosed(1, 100).toArray();
        assertThat(Quantiles.rank(v, 0.50)).isEqualTo("50");
        assertThat(Quantiles.rank(v, 0.95)).isEqualTo("95");
        assertThat(Quantiles.rank(v, 0.99)).isEqualTo("99");
        long[] ten = LongStream.rangeClosed(1, 10).map(i -> i * 10).toArray();
        assertThat(Quantiles.rank(new long[] {3, 9}, 0.50)).isEqualTo("3");
        assertThat(Quantiles.rank(ten, 0.95)).isEqualTo("100");
        assertThat(Quantiles.max(ten)).isEqualTo("100");
    }

    @Test
    void no_values_have_no_percentile_one_value_is_every_percentile_and_unknown_values_are_dropped() {
        assertThat(Quantiles.rank(new long[0], 0.50)).isEqualTo("n/a");
        assertThat(Quantiles.max(new long[0])).isEqualTo("n/a");
        for (double p : new double[] {0.0, 0.01, 0.50, 0.95, 0.99, 1.0}) {
            assertThat(Quantiles.rank(new long[] {7}, p)).isEqualTo("7");
        }
        assertThat(Quantiles.known(new long[] {5, -1, 2})).containsExactly(2, 5);
    }
}
