package air.runtime.plan;

import java.util.function.Function;
import java.util.function.ToLongFunction;

/** How a keyed stage extracts its key: a primitive long (kept in primitive maps) or an object. */
public sealed interface KeySpec {

    OperatorInfo info();

    record LongKey(OperatorInfo info, ToLongFunction<?> keyFn) implements KeySpec { }

    record ObjectKey(OperatorInfo info, Function<?, ?> keyFn) implements KeySpec { }
}
