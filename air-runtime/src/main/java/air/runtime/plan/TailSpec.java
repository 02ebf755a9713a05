package air.runtime.plan;

import air.runtime.api.Codec;
import air.runtime.api.SinkFactory;
import java.util.List;
import java.util.Locale;

/**
 * How a vertex (or one branch of it) ends: a sink, the partial half of a window aggregation
 * feeding a shuffle edge, the sending end of an exchange edge, or a fork into several branches
 * that all see every record.
 */
public sealed interface TailSpec {

    OperatorInfo info();

    String describe();

    /** A tail that feeds shuffle edge {@code edge()}: a window's partial half or an exchange. */
    sealed interface Shuffle extends TailSpec permits PartialWindow, Exchange {
        int edge();

        /** How the edge's items cross peers and checkpoints; null: through the JVM's serializer (Kryo by default). */
        Codec<?> codec();
    }

    /** How an exchange spreads records over the next vertex's instances: round robin, to all, or by key (a process function). */
    enum Spread { REBALANCE, BROADCAST, KEY }

    /**
     * The sending end of an exchange edge: records (with their event times) go to the next
     * vertex's instances round robin or to all of them, with low watermarks behind them;
     * {@code recordCodec} carries them across peers and into snapshots (null: the JVM's serializer). A {@code KEY}
     * exchange sends each record to the owner of its key's hash ({@code key}; null otherwise),
     * hashed as KEY routing hashes a window's keys.
     */
    record Exchange(OperatorInfo info, Spread spread, Codec<?> recordCodec, int edge, KeySpec key) implements Shuffle {
        public Exchange(OperatorInfo info, Spread spread, Codec<?> recordCodec, int edge) {
            this(info, spread, recordCodec, edge, null);
        }

        public Exchange {
            if ((spread == Spread.KEY) != (key != null)) {
                throw new IllegalArgumentException(info.name() + ": a KEY exchange needs a key, and only it has one (" + spread + ")");
            }
        }

        public String describe() {
            return "exchange " + spread.name().toLowerCase(Locale.ROOT) + (key != null ? " by " + key.info().name() : "") + " " + info
                    + " ==> shuffle " + edge;
        }

        public Codec<?> codec() {
            return recordCodec;
        }
    }

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
    record PartialWindow(OperatorInfo info, WindowAggregation aggregation, int edge) implements Shuffle {
        public String describe() {
            return "window-partial " + aggregation.describe() + " ==> shuffle " + edge;
        }

        public Codec<?> codec() {
            return aggregation.op().accumulatorCodec();
        }
    }

    /**
     * Every record goes down each branch, in order: a stage that feeds several stages. With
     * {@code deadLetters}, it has two branches and splits instead: records go down the first; the
     * second takes only the {@link air.runtime.api.DeadLetter}s of the operator just before the
     * fork (the last of its chain, or the vertex's head), whose user function failed on them under
     * {@link air.runtime.api.BadRecordPolicy#deadLetter}. Progress and the end of input go down both.
     */
    record Fork(OperatorInfo info, List<Branch> branches, boolean deadLetters) implements TailSpec {
        public Fork(OperatorInfo info, List<Branch> branches) {
            this(info, branches, false);
        }

        public Fork {
            branches = List.copyOf(branches);
            if (branches.size() < 2) {
                throw new IllegalArgumentException(info.name() + ": a fork needs at least two branches, has " + branches.size());
            }
            if (deadLetters && branches.size() != 2) {
                throw new IllegalArgumentException(info.name() + ": a dead-letter fork has two branches (records, dead letters), not "
                        + branches.size());
            }
        }

        public String describe() {
            return deadLetters ? "records to branch 1, dead letters to branch 2 " + info : "fork into " + branches.size() + " branches " + info;
        }
    }

    /** One branch of a fork: stateless operators, then how the branch ends. */
    record Branch(List<OpSpec> chain, TailSpec tail) {
        public Branch {
            chain = List.copyOf(chain);
        }
    }
}
