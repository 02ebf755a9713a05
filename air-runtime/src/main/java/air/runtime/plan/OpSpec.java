package air.runtime.plan;

import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/** A stateless operator fused into a vertex's chain. */
public sealed interface OpSpec {

    OperatorInfo info();

    String describe();

    record Map(OperatorInfo info, Function<?, ?> fn) implements OpSpec {
        public String describe() { return "map " + info; }
    }

    record Filter(OperatorInfo info, Predicate<?> predicate) implements OpSpec {
        public String describe() { return "filter " + info; }
    }

    record FlatMap(OperatorInfo info, Function<?, ? extends Iterable<?>> fn) implements OpSpec {
        public String describe() { return "flatMap " + info; }
    }

    /** A lookup against a static table ({@code valueOf}: a key's value or null), {@code inner} dropping records whose key is absent. */
    record Lookup(OperatorInfo info, Function<?, ?> valueOf, Function<?, ?> keyFn, boolean inner,
                  BiFunction<?, ?, ?> joinFn) implements OpSpec {
        public String describe() { return "lookup " + (inner ? "INNER " : "LEFT ") + info; }
    }

    /** Pairs each record with its event time ({@code Timestamped}), ahead of a join that buffers records. */
    record Stamp(OperatorInfo info) implements OpSpec {
        public String describe() { return "stamp " + info.name(); }
    }

    /** Assigns event time and derives progress: watermark = max timestamp - allowed disorder - 1. */
    record Timestamps(OperatorInfo info, ToLongFunction<?> timestampFn, long allowedDisorderMs) implements OpSpec {
        public String describe() { return "timestamps " + info.name() + " disorder=" + allowedDisorderMs + "ms"; }
    }
}
