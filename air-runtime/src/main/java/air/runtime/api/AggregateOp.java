package air.runtime.api;

import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A mergeable aggregation: a mutable accumulator {@code A} is created per (window, key), fed items,
 * merged with partial accumulators from other workers, and finished into the result {@code R}.
 *
 * <p>Contract: {@code combine} must be associative and must give the same result as accumulating
 * both inputs into one accumulator, because the engine pre-aggregates on every worker and merges
 * the partials at the key's owner. {@code combine} must not modify {@code other} nor keep a
 * reference to it (sliding windows combine one frame into several windows); {@code finish} must
 * not modify the accumulator.
 */
public interface AggregateOp<T, A, R> {

    A create();

    void accumulate(A acc, T item);

    /** Merges {@code other} into {@code acc}, leaving {@code other} unchanged. */
    void combine(A acc, A other);

    R finish(A acc);

    /**
     * How accumulators travel between peers and into snapshots; null (the default): through the
     * JVM's {@link Serializer}, slower and longer than a codec.
     */
    default Codec<A> accumulatorCodec() {
        return null;
    }

    /** A short name for plans and meters, e.g. {@code count}. */
    default String name() {
        return "aggregate";
    }

    /** As {@link #of(String, Supplier, BiConsumer, BiConsumer, Function)}, with a codec for cluster mode. */
    static <T, A, R> AggregateOp<T, A, R> of(String name, Supplier<A> createFn, BiConsumer<? super A, ? super T> accumulateFn,
                                             BiConsumer<? super A, ? super A> combineFn, Function<? super A, ? extends R> finishFn,
                                             Codec<A> codec) {
        Objects.requireNonNull(codec, "AggregateOp.of(" + name + "): codec is null");
        AggregateOp<T, A, R> op = of(name, createFn, accumulateFn, combineFn, finishFn);
        return new AggregateOp<>() {
            @Override public A create() { return op.create(); }
            @Override public void accumulate(A acc, T item) { op.accumulate(acc, item); }
            @Override public void combine(A acc, A other) { op.combine(acc, other); }
            @Override public R finish(A acc) { return op.finish(acc); }
            @Override public String name() { return name; }
            @Override public Codec<A> accumulatorCodec() { return codec; }
        };
    }

    /** Builds an operation from four functions, validating each. */
    static <T, A, R> AggregateOp<T, A, R> of(String name, Supplier<A> createFn, BiConsumer<? super A, ? super T> accumulateFn,
                                             BiConsumer<? super A, ? super A> combineFn, Function<? super A, ? extends R> finishFn) {
        Objects.requireNonNull(name, "AggregateOp.of(name, ...): name is null");
        Objects.requireNonNull(createFn, "AggregateOp.of(" + name + "): createFn is null");
        Objects.requireNonNull(accumulateFn, "AggregateOp.of(" + name + "): accumulateFn is null");
        Objects.requireNonNull(combineFn, "AggregateOp.of(" + name + "): combineFn is null");
        Objects.requireNonNull(finishFn, "AggregateOp.of(" + name + "): finishFn is null");
        return new AggregateOp<>() {
            @Override public A create() { return createFn.get(); }
            @Override public void accumulate(A acc, T item) { accumulateFn.accept(acc, item); }
            @Override public void combine(A acc, A other) { combineFn.accept(acc, other); }
            @Override public R finish(A acc) { return finishFn.apply(acc); }
            @Override public String name() { return name; }
        };
    }
}
