package air.launcher;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * Percentiles of measured times (recovery, takeover, first output, latency), from an HdrHistogram:
 * the CHECK lines', the YSB report's and the benchmark scripts' ({@code n/a} for none). A
 * percentile is HdrHistogram's {@code getValueAtPercentile}: the smallest recorded value with at
 * least that share of the values at or below it (nearest rank), exact below 131 072 and within
 * 0.001 % above (5 significant digits: record latencies in microseconds and they are exact to
 * 131 ms). Unknown values (negative) are left out.
 */
public final class Quantiles {

    private final Histogram histogram = new Histogram(5);

    private Quantiles() {
    }

    /** The known (non-negative) values of {@code values}. */
    public static Quantiles of(long... values) {
        Quantiles q = new Quantiles();
        for (long v : values) {
            q.add(v);
        }
        return q;
    }

    /** Records {@code value}; a negative one (unknown) is left out. */
    public void add(long value) {
        if (value >= 0) {
            histogram.recordValue(value);
        }
    }

    public long count() {
        return histogram.getTotalCount();
    }

    /** The {@code p} quantile ({@code 0 <= p <= 1}); undefined for no values. */
    public long at(double p) {
        if (p < 0 || p > 1) {
            throw new IllegalArgumentException("a quantile is in [0, 1], was " + p);
        }
        return histogram.getValueAtPercentile(p * 100);
    }

    /** {@link #at}, or {@code n/a} for no values. */
    public String rank(double p) {
        return count() == 0 ? "n/a" : Long.toString(at(p));
    }

    /** The largest value, or {@code n/a} for none. */
    public String max() {
        return count() == 0 ? "n/a" : Long.toString(histogram.getMaxValue());
    }

    public long min() {
        return histogram.getMinValue();
    }

    /**
     * The benchmark scripts' percentiles: reads one number a line from standard input and prints
     * the quantile of each argument (e.g. {@code 0.5 0.95}) on one line, {@code n/a} for no numbers.
     * A line that is not a whole number fails with exit status 2, naming the line.
     */
    public static void main(String[] args) throws IOException {
        if (args.length == 0) {
            System.err.println("usage: Quantiles P [P ...] < numbers   (P in [0, 1])");
            System.exit(2);
        }
        Quantiles q = new Quantiles();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        int lineNo = 0;
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            lineNo++;
            if (line.isBlank()) {
                continue;
            }
            try {
                q.add(Long.parseLong(line.trim()));
            } catch (NumberFormatException e) {
                System.err.printf(Locale.ROOT, "Quantiles: line %d of standard input is not a whole number: '%s'%n", lineNo, line);
                System.exit(2);
            }
        }
        StringBuilder out = new StringBuilder();
        for (String a : args) {
            out.append(out.length() == 0 ? "" : " ").append(q.rank(Double.parseDouble(a)));
        }
        System.out.println(out);
    }
}
