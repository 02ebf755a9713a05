package air.runtime.plan;

import air.runtime.api.SinkFactory;
import java.util.List;

/**
 * How a vertex (or one branch of it) ends: a sink, the partial half of a window aggregation
 * feeding a shuffle edge, or a fork into several branches that all see every record.
 */
public sealed interface TailSpec {

    OperatorInfo info();

    String describe();

    /**
     * A sink. A stream that merges several others reaches its sink once per merged path, each
     * copy in its own vertex or branch: copy {@code copy} of {@code copies} opens writers
     * {@code copy * P + i} of {@code copies * P}, so writer numbers never collide.
     */
    record Sink(OperatorInfo info, SinkFactory<?> factory, int copy, int copies) implements TailSpec {
        public Sink(OperatorInfo info, SinkFactory<?> factory) {
            this(info, factory, 0, 1);
        }

        public Sink {
            if (copies < 1 || copy < 0 || copy >= copies) {
                throw new IllegalArgumentException(info.name() + ": sink copy " + copy + " of " + copies);
            }
        }

        public String describe() {
            return "sink " + factory.describe() + " " + info + (copies > 1 ? " (copy " + (copy + 1) + " of " + copies + ")" : "");
        }
    }

    /** The partial half of {@code aggregation}, whose partials travel on shuffle edge {@code edge}. */
    record PartialWindow(OperatorInfo info, WindowAggregation aggregation, int edge) implements TailSpec {
        public String describe() {
            return "window-partial " + aggregation.describe() + " ==> shuffle " + edge;
        }
    }

    /** Every record goes down each branch, in order: a stage that feeds several stages. */
    record Fork(OperatorInfo info, List<Branch> branches) implements TailSpec {
        public Fork {
            branches = List.copyOf(branches);
            if (branches.size() < 2) {
                throw new IllegalArgumentException(info.name() + ": a fork needs at least two branches, has " + branches.size());
            }
        }

        public String describe() {
            return "fork into " + branches.size() + " branches " + info;
        }
    }

    /** One branch of a fork: stateless operators, then how the branch ends. */
    record Branch(List<OpSpec> chain, TailSpec tail) {
        public Branch {
            chain = List.copyOf(chain);
        }
    }
}
