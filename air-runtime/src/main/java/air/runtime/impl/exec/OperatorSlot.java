package air.runtime.impl.exec;

import air.runtime.impl.ops.Counted;
import air.runtime.plan.OperatorInfo;
import java.util.List;

/**
 * The operator instances at one position of one vertex, for meters; {@code downstream} is the
 * position of the operator it feeds in the vertex (a fork: its first branch), or -1 at a tail.
 */
record OperatorSlot(int vertex, int position, String kind, OperatorInfo info, List<Counted> instances, int downstream) { }
