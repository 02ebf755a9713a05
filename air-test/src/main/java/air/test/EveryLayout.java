package air.test;

import air.runtime.JobConfig;
import air.runtime.plan.Progress;
import air.runtime.plan.Routing;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Runs one job on 1, 2 and 3 workers under every routing (KEY, AIR) and progress mode (low
 * watermarks, hew-meld) and checks that each run gives the same output as the first — the
 * guarantee AIR makes, and the first thing to test of a new job. {@code run} builds and executes
 * the job for a config and returns its output as comparable text (e.g.
 * {@link WindowResultsAssert#rows}).
 */
public final class EveryLayout {

    /** One run: its config and what it gave. */
    public record Run(String layout, List<String> output) { }

    private EveryLayout() {
    }

    /** The configs every layout runs with: {@code base} with workers, routing and progress set. */
    public static List<JobConfig> configs(JobConfig base) {
        List<JobConfig> configs = new ArrayList<>();
        for (int workers = 1; workers <= 3; workers++) {
            for (Routing routing : Routing.values()) {
                for (Progress progress : Progress.values()) {
                    configs.add(base.workers(workers).routing(routing).progress(progress));
                }
            }
        }
        return configs;
    }

    /**
     * Runs {@code run} in every layout; returns the common output, or throws {@link AssertionError}
     * naming the first layout whose output differs and how.
     */
    public static List<String> sameOutput(JobConfig base, Function<JobConfig, List<String>> run) {
        Objects.requireNonNull(run, "EveryLayout.sameOutput(base, run): run is null");
        List<String> first = null;
        String firstLayout = null;
        for (JobConfig c : configs(base)) {
            String layout = "workers=" + c.workers() + " routing=" + c.routing() + " progress=" + c.progress();
            List<String> out = run.apply(c);
            if (first == null) {
                first = List.copyOf(out);
                firstLayout = layout;
            } else if (!first.equals(out)) {
                List<String> missing = new ArrayList<>(first);
                missing.removeAll(out);
                List<String> extra = new ArrayList<>(out);
                extra.removeAll(first);
                throw new AssertionError("the job's output under " + layout + " differs from " + firstLayout + ": missing " + missing
                        + ", extra " + extra + " (" + out.size() + " rows against " + first.size() + ")");
            }
        }
        return first;
    }

    /**
     * {@link #sameOutput}, then the same job on 2 and 3 peers in this JVM ({@link InJvmPeers}, one
     * worker each, every routing and progress mode): their outputs together must be the same again.
     * {@code run} gets the config to execute, with the peer's cluster set in the second part.
     */
    public static List<String> sameOutputOnPeers(JobConfig base, Function<JobConfig, List<String>> run) {
        List<String> local = sameOutput(base, run);
        for (int peers = 2; peers <= 3; peers++) {
            for (Routing routing : Routing.values()) {
                for (Progress progress : Progress.values()) {
                    JobConfig c = base.workers(1).routing(routing).progress(progress);
                    List<String> all = new ArrayList<>();
                    InJvmPeers.run(peers, cluster -> run.apply(c.cluster(cluster))).forEach(all::addAll);
                    all.sort(null);
                    List<String> expected = new ArrayList<>(local);
                    expected.sort(null);
                    if (!expected.equals(all)) {
                        List<String> missing = new ArrayList<>(expected);
                        missing.removeAll(all);
                        List<String> extra = new ArrayList<>(all);
                        extra.removeAll(expected);
                        throw new AssertionError("the job's output on " + peers + " peers (routing=" + routing + " progress=" + progress
                                + ") differs from one JVM's: missing " + missing + ", extra " + extra);
                    }
                }
            }
        }
        return local;
    }
}
