package air.runtime.impl.ops;

import air.runtime.plan.OperatorInfo;

/** What meters and diagnostics read of one final window instance, from any thread. */
public interface WindowFinal {

    long results();

    OperatorInfo info();

    /** The latest published view of what this instance waits for. */
    ProgressSnapshot snapshot();

    /** Which instance this is, for reports: "instance 1 (global 3 on peer 1)". */
    String describe();

    /** The vertex of the plan it belongs to. */
    int vertex();

    /** Its index among the vertex's instances on this peer. */
    int instance();
}
