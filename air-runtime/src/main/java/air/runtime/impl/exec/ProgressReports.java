package air.runtime.impl.exec;

import air.runtime.impl.ops.ProgressSnapshot;
import air.runtime.impl.ops.WindowFinal;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * "Why is my window not firing?": the progress report ({@code Job.progressReport()}) and the stall
 * watch that logs a window open for a whole period, both read from the final instances' published
 * progress. Only reads: it never touches a tasklet.
 */
final class ProgressReports {

    private static final Logger LOG = LoggerFactory.getLogger(RunningJob.class);

    private ProgressReports() {
    }

    /** Every final instance of {@code graphs} (this peer's own, then blocks taken over): its oldest open epoch and who holds it back. */
    static String report(String job, Object status, List<JobGraph> graphs) {
        StringBuilder sb = new StringBuilder("job '").append(job).append("' ").append(status);
        for (JobGraph g : graphs) {
            List<WindowFinal> finals = g.finals();
            for (int i = 0; i < finals.size(); i++) {
                ProgressSnapshot s = finals.get(i).snapshot();
                sb.append("\n  ").append(finals.get(i).info().name()).append(' ').append(finals.get(i).describe()).append(": ");
                if (s.waiting()) {
                    sb.append("oldest open epoch ").append(s.oldestOpenEpoch()).append(", held back by upstream instance(s) ")
                      .append(g.describeHolders(finals.get(i), s.holders()));
                } else {
                    sb.append("no open window");
                }
            }
        }
        return sb.toString();
    }

    /** Logs, once per stall, the windows of {@code graph} that stayed open for a whole period and who holds them back. */
    static Thread startStallWatch(JobContext context, JobGraph graph, long periodMs, BooleanSupplier running) {
        return Thread.ofVirtual().name(context.jobName() + "/stall-watch").start(() -> {
            List<WindowFinal> finals = graph.finals();
            long[] seen = new long[finals.size()];
            Arrays.fill(seen, Long.MAX_VALUE);
            while (running.getAsBoolean() && !context.isCancelled()) {
                LockSupport.parkNanos(periodMs * 1_000_000L);
                for (int i = 0; i < finals.size(); i++) {
                    ProgressSnapshot s = finals.get(i).snapshot();
                    if (s.waiting() && s.oldestOpenEpoch() == seen[i] && running.getAsBoolean()) {
                        LOG.warn("job '{}': {} {} has waited over {} ms for epoch {}: upstream instance(s) {} still hold it back",
                                context.jobName(), finals.get(i).info().name(), finals.get(i).describe(), periodMs, s.oldestOpenEpoch(),
                                graph.describeHolders(finals.get(i), s.holders()));
                    }
                    seen[i] = s.waiting() ? s.oldestOpenEpoch() : Long.MAX_VALUE;
                }
            }
        });
    }
}
