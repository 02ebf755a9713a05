package air.launcher;

import java.util.Arrays;

/** Nearest-rank quantiles of measured times, as the CHECK lines print them ({@code n/a} for none). */
final class Quantiles {

    private Quantiles() {
    }

    /** The known (non-negative) values, sorted. */
    static long[] known(long[] values) {
        return Arrays.stream(values).filter(v -> v >= 0).sorted().toArray();
    }

    /** The {@code p} quantile (nearest rank) of sorted values, or n/a for none. */
    static String rank(long[] sorted, double p) {
        if (sorted.length == 0) {
            return "n/a";
        }
        int r = (int) Math.ceil(p * sorted.length);
        return Long.toString(sorted[Math.max(0, Math.min(sorted.length - 1, r - 1))]);
    }

    static String max(long[] sorted) {
        return sorted.length == 0 ? "n/a" : Long.toString(sorted[sorted.length - 1]);
    }
}
