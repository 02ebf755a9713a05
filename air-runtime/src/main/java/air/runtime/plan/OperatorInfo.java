package air.runtime.plan;

import java.util.Objects;

/**
 * What a person needs to find an operator: its kind, the user's call site that created it
 * ({@code File.java:42}) and an optional user-given name.
 */
public record OperatorInfo(String kind, String callSite, String label) {

    public OperatorInfo {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(callSite, "callSite");
    }

    public static OperatorInfo of(String kind, String callSite) {
        return new OperatorInfo(kind, callSite, null);
    }

    public OperatorInfo withLabel(String newLabel) {
        return new OperatorInfo(kind, callSite, newLabel);
    }

    /** The name used in errors, plans and meters: the label, else {@code kind@callSite}. */
    public String name() {
        return label != null ? label : kind + "@" + callSite;
    }

    /**
     * The name meters and summaries use: the label, else {@code kind@v<vertex>.<position>} — from
     * the plan's structure, so a dashboard's series keep their names when source lines move.
     */
    public String meterName(int vertex, int position) {
        return label != null ? label : kind + "@v" + vertex + "." + position;
    }

    @Override
    public String toString() {
        return label != null ? label + " (" + kind + "@" + callSite + ")" : name();
    }
}
