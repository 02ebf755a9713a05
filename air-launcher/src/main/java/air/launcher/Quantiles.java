package air.launcher;

import java.util.Arrays;

/** Nearest-rank quantiles of measured times: the CHECK lines' and the YSB report's ({@code n/a} or NaN for none). */
public final class Quantiles {

    private Quantiles() {
    }

    /** The known (non-negative) values, sorted. */
    static long[] known(long[] values) {
        return Arrays.stream(values).filter(v -> v >= 0).sorted().toArray();
    }

    /** The {@code p} quantile (nearest rank: the smallest value with at least {@code p} of them at or below it) of non-empty sorted values. */
    public static long nearestRank(long[] sorted, double p) {
        int r = (int) Math.ceil(p * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, r - 1))];
    }

    /** The {@code p} quantile (nearest rank) of sorted values, or n/a for none. */
    static String rank(long[] sorted, double p) {
        return sorted.length == 0 ? "n/a" : Long.toString(nearestRank(sorted, p));
    }

    static String max(long[] sorted) {
        return sorted.length == 0 ? "n/a" : Long.toString(sorted[sorted.length - 1]);
    }
}
