package air.dsl;

import air.dsl.impl.aggregate.AverageOp;
import air.dsl.impl.aggregate.CountOp;
import air.dsl.impl.aggregate.ListOp;
import air.dsl.impl.aggregate.LongFieldOp;
import air.runtime.api.AggregateOp;
import air.runtime.api.Codec;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/** Built-in window aggregations, each with a mutable accumulator and no allocation per record. */
public final class Aggregations {

    private Aggregations() {
    }

    /** The number of records per window (and key). */
    public static <T> AggregateOp<T, ?, Long> count() {
        return new CountOp<>();
    }

    /** The sum of {@code valueFn(record)} per window (and key); overflow wraps as {@code long} addition does. */
    public static <T> AggregateOp<T, ?, Long> sum(ToLongFunction<? super T> valueFn) {
        return new LongFieldOp<>(LongFieldOp.Kind.SUM, Objects.requireNonNull(valueFn, "Aggregations.sum(valueFn): valueFn is null"));
    }

    /** The smallest {@code valueFn(record)} per window (and key). */
    public static <T> AggregateOp<T, ?, Long> min(ToLongFunction<? super T> valueFn) {
        return new LongFieldOp<>(LongFieldOp.Kind.MIN, Objects.requireNonNull(valueFn, "Aggregations.min(valueFn): valueFn is null"));
    }

    /** The largest {@code valueFn(record)} per window (and key). */
    public static <T> AggregateOp<T, ?, Long> max(ToLongFunction<? super T> valueFn) {
        return new LongFieldOp<>(LongFieldOp.Kind.MAX, Objects.requireNonNull(valueFn, "Aggregations.max(valueFn): valueFn is null"));
    }

    /** The mean of {@code valueFn(record)} per window (and key). */
    public static <T> AggregateOp<T, ?, Double> average(ToDoubleFunction<? super T> valueFn) {
        return new AverageOp<>(Objects.requireNonNull(valueFn, "Aggregations.average(valueFn): valueFn is null"));
    }

    /**
     * Every record of the window, in a list (order between workers unspecified): for functions
     * over the elements, e.g. {@link WindowedStage#coGroup}. Lists cannot travel between peers or
     * into checkpoints without an element codec: use {@link #toList(Codec)} there.
     */
    public static <T> AggregateOp<T, ?, List<T>> toList() {
        return new ListOp<T>(null);
    }

    /** {@link #toList()} whose lists cross peers and checkpoints, each element written by {@code elements}. */
    public static <T> AggregateOp<T, ?, List<T>> toList(Codec<T> elements) {
        return new ListOp<>(Objects.requireNonNull(elements, "Aggregations.toList(elements): elements is null"));
    }

    /** A user-defined aggregation from its four functions; see {@link AggregateOp} for the contract. */
    public static <T, A, R> AggregateOp<T, A, R> of(String name, Supplier<A> createFn, BiConsumer<? super A, ? super T> accumulateFn,
                                                    BiConsumer<? super A, ? super A> combineFn, Function<? super A, ? extends R> finishFn) {
        return AggregateOp.of(name, createFn, accumulateFn, combineFn, finishFn);
    }

    /** A user-defined aggregation whose accumulators can travel between peers (cluster mode). */
    public static <T, A, R> AggregateOp<T, A, R> of(String name, Supplier<A> createFn, BiConsumer<? super A, ? super T> accumulateFn,
                                                    BiConsumer<? super A, ? super A> combineFn, Function<? super A, ? extends R> finishFn,
                                                    Codec<A> codec) {
        return AggregateOp.of(name, createFn, accumulateFn, combineFn, finishFn, codec);
    }
}
