package air.runtime.impl.cluster;

import air.runtime.JobConfig;
import air.runtime.plan.PhysicalPlan;
import java.util.ArrayList;
import java.util.List;

/**
 * What every peer must agree on before running: the plan as text and the settings that shape it.
 * It keeps the call sites, so that a difference report points at the lines that differ; a
 * checkpoint does not depend on them (its operators are matched by stable id,
 * {@link air.runtime.impl.checkpoint.OperatorIds}).
 */
public final class PlanFingerprint {

    private PlanFingerprint() {
    }

    public static String of(PhysicalPlan plan, JobConfig config, int peers) {
        return "peers=" + peers + " workers=" + config.workers() + " routing=" + config.routing() + " progress=" + config.progress()
                + " watermarkIntervalMs=" + config.watermarkIntervalMs() + " idleTimeoutMs=" + config.idleTimeoutMs()
                + (config.replicas() > 0 ? " replicas=" + config.replicas() + " every " + config.replicationIntervalMs() + " ms" : "")
                + "\n" + plan.explain();
    }

    /** The lines where {@code theirs} differs from {@code mine}, for the error message. */
    public static String difference(String mine, int myRank, String theirs, int theirRank) {
        String[] a = mine.split("\n");
        String[] b = theirs.split("\n");
        List<String> out = new ArrayList<>();
        for (int i = 0; i < Math.max(a.length, b.length); i++) {
            String x = i < a.length ? a[i] : "(nothing)";
            String y = i < b.length ? b[i] : "(nothing)";
            if (!x.equals(y)) {
                out.add("  line " + (i + 1) + ":\n    peer " + myRank + ": " + x.strip() + "\n    peer " + theirRank + ": " + y.strip());
            }
        }
        return String.join("\n", out);
    }
}
