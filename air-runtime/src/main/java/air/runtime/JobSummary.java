package air.runtime;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.NoSuchElementException;

/**
 * What a job did on this peer, without a meter registry: records in and out of every operator
 * (summed over its instances), window results emitted, records dropped as late, and — once it
 * ended — its status and duration. {@link Job#summary()} gives it while the job runs and after.
 *
 * @param job           the job's name
 * @param status        its status when the summary was taken
 * @param elapsed       start to end, or to the moment the summary was taken
 * @param operators     one entry per operator, in plan order (vertex, then position in its chain)
 * @param windowResults results emitted by window operators (aggregations, joins, top-k)
 * @param lateRecords   records dropped as late (or sent to a late-record side output)
 * @param recordsIn     records read by the sources
 */
public record JobSummary(String job, JobStatus status, Duration elapsed, List<Operator> operators, long windowResults, long lateRecords,
                         long recordsIn) {

    public JobSummary {
        operators = List.copyOf(operators);
    }

    /**
     * One operator: its meter name ({@code named(...)}, else {@code kind@v<vertex>.<position>}, which
     * does not change when source lines move), kind, and counts.
     */
    public record Operator(String name, String kind, int vertex, int position, long recordsIn, long recordsOut) { }

    /** The operator called {@code name} ({@link Operator#name()}). */
    public Operator operator(String name) {
        for (Operator o : operators) {
            if (o.name().equals(name)) {
                return o;
            }
        }
        throw new NoSuchElementException("job '" + job + "' has no operator named '" + name + "'; it has " + operators.stream()
                .map(Operator::name).toList());
    }

    /** The operators of kind {@code kind} ({@code map}, {@code sink}, {@code window-partial}, ...). */
    public List<Operator> ofKind(String kind) {
        return operators.stream().filter(o -> o.kind().equals(kind)).toList();
    }

    /** The share of the source's records dropped as late, 0 for none read. */
    public double lateShare() {
        return recordsIn == 0 ? 0 : (double) lateRecords / recordsIn;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "job '%s' %s in %d ms: %d records in, %d window results, %d late%n",
                job, status, elapsed.toMillis(), recordsIn, windowResults, lateRecords));
        for (Operator o : operators) {
            sb.append(String.format(Locale.ROOT, "  %-40s %-15s in=%d out=%d%n", o.name(), o.kind(), o.recordsIn(), o.recordsOut()));
        }
        return sb.toString();
    }
}
