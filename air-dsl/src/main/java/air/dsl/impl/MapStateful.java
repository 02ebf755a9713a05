package air.dsl.impl;

import air.runtime.api.KeyedProcessFunction;
import air.runtime.api.ProcessContext;
import air.runtime.api.StateDescriptor;
import air.runtime.api.StatefulMapFunction;
import air.runtime.api.ValueState;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * {@code mapStateful} as a process function: one value state holds the key's state object, made
 * on the key's first record; the mapping function changes it in place and its result, when not
 * null, is emitted. The object is stored again after each call, so a checkpoint holds its newest
 * contents.
 */
public final class MapStateful<S, K, T, R> implements KeyedProcessFunction<K, T, R> {

    private final StateDescriptor<ValueState<S>> state;
    private final Supplier<? extends S> createFn;
    private final StatefulMapFunction<? super S, ? super K, ? super T, ? extends R> mapFn;

    public MapStateful(StateDescriptor<ValueState<S>> state, Supplier<? extends S> createFn,
                       StatefulMapFunction<? super S, ? super K, ? super T, ? extends R> mapFn) {
        this.state = state;
        this.createFn = createFn;
        this.mapFn = mapFn;
    }

    @Override
    public void process(T record, ProcessContext<K, R> ctx) {
        ValueState<S> value = ctx.state(state);
        S s = value.value();
        if (s == null) {
            s = Objects.requireNonNull(createFn.get(), "mapStateful: createFn returned null");
        }
        R out = mapFn.apply(s, ctx.key(), record);
        value.update(s);
        if (out != null) {
            ctx.emit(out);
        }
    }
}
