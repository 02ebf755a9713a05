package air.runtime.plan;

import air.runtime.api.BadRecordPolicy;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * A stateless operator fused into a vertex's chain. An operator that runs a user function has a
 * {@link BadRecordPolicy}: what happens to a record the function throws on (the job fails, by
 * default). Under {@link BadRecordPolicy#deadLetter} the operator ends its chain, and its tail is a
 * {@link TailSpec.Fork} whose last branch takes its dead letters ({@link TailSpec.Fork#deadLetters}).
 */
public sealed interface OpSpec {

    OperatorInfo info();

    String describe();

    /** What happens to a record this operator's user function fails on; {@code fail} for operators without one. */
    default BadRecordPolicy badRecords() {
        return BadRecordPolicy.fail();
    }

    record Map(OperatorInfo info, Function<?, ?> fn, BadRecordPolicy badRecords) implements OpSpec {
        public Map(OperatorInfo info, Function<?, ?> fn) {
            this(info, fn, BadRecordPolicy.fail());
        }

        public Map {
            Objects.requireNonNull(badRecords, "badRecords");
        }

        public String describe() { return "map " + info + onBadRecords(badRecords); }
    }

    record Filter(OperatorInfo info, Predicate<?> predicate, BadRecordPolicy badRecords) implements OpSpec {
        public Filter(OperatorInfo info, Predicate<?> predicate) {
            this(info, predicate, BadRecordPolicy.fail());
        }

        public Filter {
            Objects.requireNonNull(badRecords, "badRecords");
        }

        public String describe() { return "filter " + info + onBadRecords(badRecords); }
    }

    record FlatMap(OperatorInfo info, Function<?, ? extends Iterable<?>> fn, BadRecordPolicy badRecords) implements OpSpec {
        public FlatMap(OperatorInfo info, Function<?, ? extends Iterable<?>> fn) {
            this(info, fn, BadRecordPolicy.fail());
        }

        public FlatMap {
            Objects.requireNonNull(badRecords, "badRecords");
        }

        public String describe() { return "flatMap " + info + onBadRecords(badRecords); }
    }

    /** A lookup against a static table ({@code valueOf}: a key's value or null), {@code inner} dropping records whose key is absent. */
    record Lookup(OperatorInfo info, Function<?, ?> valueOf, Function<?, ?> keyFn, boolean inner,
                  BiFunction<?, ?, ?> joinFn, BadRecordPolicy badRecords) implements OpSpec {
        public Lookup(OperatorInfo info, Function<?, ?> valueOf, Function<?, ?> keyFn, boolean inner, BiFunction<?, ?, ?> joinFn) {
            this(info, valueOf, keyFn, inner, joinFn, BadRecordPolicy.fail());
        }

        public Lookup {
            Objects.requireNonNull(badRecords, "badRecords");
        }

        public String describe() { return "lookup " + (inner ? "INNER " : "LEFT ") + info + onBadRecords(badRecords); }
    }

    /** Pairs each record with its event time ({@code Timestamped}), ahead of a join that buffers records. */
    record Stamp(OperatorInfo info) implements OpSpec {
        public String describe() { return "stamp " + info.name(); }
    }

    /** Assigns event time and derives progress: watermark = max timestamp - allowed disorder - 1. */
    record Timestamps(OperatorInfo info, ToLongFunction<?> timestampFn, long allowedDisorderMs, BadRecordPolicy badRecords) implements OpSpec {
        public Timestamps(OperatorInfo info, ToLongFunction<?> timestampFn, long allowedDisorderMs) {
            this(info, timestampFn, allowedDisorderMs, BadRecordPolicy.fail());
        }

        public Timestamps {
            Objects.requireNonNull(badRecords, "badRecords");
        }

        public String describe() {
            return "timestamps " + info.name() + " disorder=" + allowedDisorderMs + "ms" + onBadRecords(badRecords);
        }
    }

    /** How {@link #describe} shows a policy other than the default {@code fail}. */
    static String onBadRecords(BadRecordPolicy policy) {
        return policy instanceof BadRecordPolicy.Fail ? "" : " [bad records: " + policy.label() + "]";
    }
}
