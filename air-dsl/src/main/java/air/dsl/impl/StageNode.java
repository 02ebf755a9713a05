package air.dsl.impl;

import air.runtime.plan.OperatorInfo;
import java.util.Objects;

/**
 * One logical stage as the user wrote it: pure data, linked to its upstream. The planner turns a
 * chain of these into a physical plan.
 */
public final class StageNode {

    /** The logical kinds, in the words of the DSL. */
    public enum Kind { SOURCE, MAP, FILTER, FLAT_MAP, TIMESTAMPS, KEY_BY, WINDOW, LATE_OUTPUT, AGGREGATE, TOP_K, SINK }

    private final Kind kind;
    private final StageNode upstream;
    private final Object payload;
    private final long argument;
    private final boolean timestamped;
    private OperatorInfo info;
    private StageNode downstream;

    public StageNode(Kind kind, StageNode upstream, OperatorInfo info, Object payload, long argument, boolean timestamped) {
        this.kind = Objects.requireNonNull(kind);
        this.upstream = upstream;
        this.info = Objects.requireNonNull(info);
        this.payload = payload;
        this.argument = argument;
        this.timestamped = timestamped;
    }

    public Kind kind() {
        return kind;
    }

    public StageNode upstream() {
        return upstream;
    }

    public StageNode downstream() {
        return downstream;
    }

    public OperatorInfo info() {
        return info;
    }

    public Object payload() {
        return payload;
    }

    public long argument() {
        return argument;
    }

    /** Whether records at this stage carry event timestamps. */
    public boolean timestamped() {
        return timestamped;
    }

    public void label(String name) {
        info = info.withLabel(name);
    }

    /** Links a downstream stage; a stage feeds at most one (plans are linear). */
    public void attach(StageNode next, String call) {
        if (downstream != null) {
            throw new IllegalStateException(call + " at " + next.info().callSite() + ": stage " + info.name()
                    + " already feeds " + downstream.info().name() + "; a stage can feed only one downstream stage");
        }
        downstream = next;
    }

    /** The stage upstream of this one that declared timestamps, or null. */
    public StageNode timestampOrigin() {
        for (StageNode n = this; n != null; n = n.upstream) {
            if (n.kind == Kind.TIMESTAMPS || n.kind == Kind.AGGREGATE || n.kind == Kind.TOP_K) {
                return n;
            }
        }
        return null;
    }
}
