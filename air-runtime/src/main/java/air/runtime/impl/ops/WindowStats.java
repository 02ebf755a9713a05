package air.runtime.impl.ops;

import air.runtime.plan.OperatorInfo;

/** What meters read of a final window operator (an interface: operators may be per-job copies of their class). */
public interface WindowStats {

    long results();

    OperatorInfo info();
}
