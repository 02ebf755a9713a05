package air.dsl;

import air.dsl.impl.StageNode;
import air.runtime.api.CountWindow;
import air.runtime.api.PerKeyWindow;
import air.runtime.api.SessionWindow;
import air.runtime.api.SinkFactory;
import air.runtime.plan.OperatorInfo;
import java.time.Duration;
import java.util.Objects;

/**
 * The settings a keyed window takes before its aggregation (a late-record sink, allowed lateness,
 * an early-results interval), shared by {@link WindowedStage} and {@link UpdatingWindowedStage}:
 * each is a node between the window and its aggregation, set at most once, refused where it
 * makes no sense, naming the call and its line.
 */
final class WindowSettings {

    /** The longest allowed lateness: far beyond any real need, and far from overflowing event-time arithmetic. */
    static final long MAX_LATENESS_MS = Long.MAX_VALUE / 4;

    private WindowSettings() {
    }

    /** The window node itself, above the settings made on it. */
    static StageNode windowNode(StageNode n) {
        StageNode w = n;
        while (w.kind().windowSetting()) {
            w = w.upstream();
        }
        return w;
    }

    /** The setting of {@code kind} already made on the window of {@code n}, or null. */
    private static StageNode setting(StageNode n, StageNode.Kind kind) {
        for (StageNode s = n; s.kind().windowSetting(); s = s.upstream()) {
            if (s.kind() == kind) {
                return s;
            }
        }
        return null;
    }

    static StageNode lateOutput(Pipeline pipeline, StageNode node, SinkFactory<?> sink, String site) {
        pipeline.checkOpen("sideOutputLateRecords", site);
        Objects.requireNonNull(sink, "sideOutputLateRecords(sink) at " + site + ": sink is null");
        StageNode earlier = setting(node, StageNode.Kind.LATE_OUTPUT);
        if (earlier != null) {
            throw new IllegalStateException("sideOutputLateRecords at " + site + ": late records already go to " + earlier.info().name()
                    + " (set at " + earlier.info().callSite() + ")");
        }
        return attach(node, new StageNode(StageNode.Kind.LATE_OUTPUT, node, OperatorInfo.of("lateRecords", site), sink, 0, true));
    }

    static StageNode lateness(Pipeline pipeline, StageNode node, Duration lateness, String site) {
        pipeline.checkOpen("allowedLateness", site);
        Objects.requireNonNull(lateness, "allowedLateness(lateness) at " + site + ": lateness is null");
        String call = "allowedLateness(" + lateness + ") at " + site;
        if (lateness.isNegative() || lateness.compareTo(Duration.ofMillis(MAX_LATENESS_MS)) > 0) {
            throw new IllegalArgumentException(call + ": lateness must be in [0, " + MAX_LATENESS_MS + "] ms, was " + lateness);
        }
        refuseUnless(node, call, "a session's end moves with its records: allowed lateness is not supported for session windows yet",
                "a count window closes when it holds n records, not at an event time: there is no lateness to allow");
        refuseTwice(node, StageNode.Kind.LATENESS, call);
        return attach(node, new StageNode(StageNode.Kind.LATENESS, node, OperatorInfo.of("allowedLateness", site), null,
                lateness.toMillis(), true));
    }

    static StageNode earlyResults(Pipeline pipeline, StageNode node, Duration interval, String site) {
        pipeline.checkOpen("earlyResults", site);
        Objects.requireNonNull(interval, "earlyResults(interval) at " + site + ": interval is null");
        String call = "earlyResults(" + interval + ") at " + site;
        if (interval.toMillis() < 1) {
            throw new IllegalArgumentException(call + ": interval must be at least 1 ms, was " + interval);
        }
        refuseUnless(node, call, "early results are not supported for session windows yet",
                "a count window is emitted as soon as it is full: it has no early results");
        refuseTwice(node, StageNode.Kind.EARLY_RESULTS, call);
        return attach(node, new StageNode(StageNode.Kind.EARLY_RESULTS, node, OperatorInfo.of("earlyResults", site), null,
                interval.toMillis(), true));
    }

    private static StageNode attach(StageNode node, StageNode setting) {
        node.attach(setting);
        return setting;
    }

    private static void refuseTwice(StageNode node, StageNode.Kind kind, String call) {
        StageNode earlier = setting(node, kind);
        if (earlier != null) {
            throw new IllegalStateException(call + ": already set to " + Duration.ofMillis(earlier.argument()) + " at "
                    + earlier.info().callSite() + "; set it once");
        }
    }

    /** Refuses {@code call} on a session window ({@code sessions} says why) or a count window ({@code counts}). */
    private static void refuseUnless(StageNode node, String call, String sessions, String counts) {
        StageNode w = windowNode(node);
        if (w.payload() instanceof PerKeyWindow p) {
            String why = switch (p) {
                case SessionWindow s -> sessions;
                case CountWindow c -> counts;
            };
            throw new IllegalArgumentException(call + ": not over " + p + " windows (" + w.info().name() + " at " + w.info().callSite()
                    + "): " + why);
        }
    }
}
