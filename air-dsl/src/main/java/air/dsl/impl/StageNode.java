package air.dsl.impl;

import air.runtime.api.BadRecordPolicy;
import air.runtime.plan.OperatorInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One logical stage as the user wrote it: pure data, linked to its upstream stages (none for a
 * source, two for a merge or a join) and to the stages it feeds (any number, each of which sees
 * every record). The planner turns the graph of these into a physical plan. Nodes are
 * only ever linked to nodes that already exist, so the graph the DSL builds has no cycle.
 */
public final class StageNode {

    /**
     * The logical kinds, in the words of the DSL. {@code LATE_OUTPUT}, {@code LATENESS} and
     * {@code EARLY_RESULTS} are settings of the window just upstream (its late-record sink, its
     * allowed lateness and early-results interval in ms as the argument), between it and its aggregation.
     */
    public enum Kind {
        SOURCE, MAP, FILTER, FLAT_MAP, LOOKUP, TIMESTAMPS, MERGE, EXCHANGE, KEY_BY, WINDOW, LATE_OUTPUT, LATENESS, EARLY_RESULTS, TABLE, AGGREGATE,
        TOP_K, JOIN, INTERVAL_JOIN, LOOKUP_JOIN, PROCESS, SIDE_OUTPUT, SINK;

        /** A setting of the window upstream of it (its node sits between the window and its aggregation). */
        public boolean windowSetting() {
            return this == LATE_OUTPUT || this == LATENESS || this == EARLY_RESULTS;
        }
    }

    private final Kind kind;
    private final List<StageNode> upstreams;
    private final Object payload;
    private final long argument;
    private final boolean timestamped;
    private final List<StageNode> downstreams = new ArrayList<>();
    private OperatorInfo info;
    /** This stage's own bad-record policy ({@code onBadRecord}), or null: the job's default. */
    private BadRecordPolicy badRecords;
    /** Where {@link #badRecords} was set: {@code onBadRecord(skip) at Job.java:42}. */
    private String badRecordsCall;

    public StageNode(Kind kind, StageNode upstream, OperatorInfo info, Object payload, long argument, boolean timestamped) {
        this(kind, upstream == null ? List.of() : List.of(upstream), info, payload, argument, timestamped);
    }

    public StageNode(Kind kind, List<StageNode> upstreams, OperatorInfo info, Object payload, long argument, boolean timestamped) {
        this.kind = Objects.requireNonNull(kind);
        this.upstreams = List.copyOf(upstreams);
        this.info = Objects.requireNonNull(info);
        this.payload = payload;
        this.argument = argument;
        this.timestamped = timestamped;
    }

    public Kind kind() {
        return kind;
    }

    /** The first upstream stage, or null for a source. */
    public StageNode upstream() {
        return upstreams.isEmpty() ? null : upstreams.get(0);
    }

    public List<StageNode> upstreams() {
        return upstreams;
    }

    /** The stages this one feeds, in the order they were attached. */
    public List<StageNode> downstreams() {
        return downstreams;
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

    /** Sets this stage's own bad-record policy, set by {@code call} (the latest call wins). */
    public void badRecords(BadRecordPolicy policy, String call) {
        badRecords = Objects.requireNonNull(policy);
        badRecordsCall = call;
    }

    /** This stage's own bad-record policy, or null when it follows the job's default. */
    public BadRecordPolicy badRecords() {
        return badRecords;
    }

    /** The call that set {@link #badRecords()}, or null. */
    public String badRecordsCall() {
        return badRecordsCall;
    }

    /** Whether this stage runs a user function per record that a bad-record policy applies to. */
    public boolean takesBadRecordPolicy() {
        return switch (kind) {
            case MAP, FILTER, FLAT_MAP, LOOKUP, TIMESTAMPS, PROCESS -> true;
            default -> false;
        };
    }

    /** Links a downstream stage; a stage may feed any number (every one sees every record). */
    public void attach(StageNode next) {
        downstreams.add(next);
    }

    /** A stage upstream of this one (on any path) that declared timestamps, or null. */
    public StageNode timestampOrigin() {
        if (kind == Kind.TIMESTAMPS || kind == Kind.AGGREGATE || kind == Kind.TOP_K || kind == Kind.JOIN || kind == Kind.INTERVAL_JOIN
                || kind == Kind.LOOKUP_JOIN) {
            return this;
        }
        for (StageNode u : upstreams) {
            StageNode origin = u.timestampOrigin();
            if (origin != null) {
                return origin;
            }
        }
        return null;
    }
}
