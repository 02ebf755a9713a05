package air.runtime.impl.cluster;

import air.runtime.JobConfig;
import air.runtime.plan.PhysicalPlan;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/** What every peer must agree on before running: the plan as text and the settings that shape it. */
public final class PlanFingerprint {

    private PlanFingerprint() {
    }

    public static String of(PhysicalPlan plan, JobConfig config, int peers) {
        return "peers=" + peers + " workers=" + config.workers() + " routing=" + config.routing() + " progress=" + config.progress()
                + " watermarkIntervalMs=" + config.watermarkIntervalMs() + " idleTimeoutMs=" + config.idleTimeoutMs()
                + (config.replicas() > 0 ? " replicas=" + config.replicas() + " every " + config.replicationIntervalMs() + " ms" : "")
                + "\n" + plan.explain();
    }

    /**
     * {@link #of} without the call sites ({@code kind@File.java:42} becomes {@code kind}): what a
     * checkpoint is matched by, so that moving a stage to another source line keeps its state.
     * Names given with {@code named(...)} stay, and so does every stage's kind, order and settings.
     */
    public static String structure(PhysicalPlan plan, JobConfig config, int peers) {
        return CALL_SITE.matcher(of(plan, config, peers)).replaceAll("");
    }

    private static final Pattern CALL_SITE = Pattern.compile("@[A-Za-z0-9_$.\\-]+\\.java:\\d+");

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
