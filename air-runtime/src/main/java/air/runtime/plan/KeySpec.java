package air.runtime.plan;

import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * How a keyed stage extracts its key: a primitive long (kept in primitive maps), an object, or
 * none at all (an unkeyed window: one accumulator per frame, travelling as long key 0).
 */
public sealed interface KeySpec {

    OperatorInfo info();

    record LongKey(OperatorInfo info, ToLongFunction<?> keyFn) implements KeySpec { }

    record ObjectKey(OperatorInfo info, Function<?, ?> keyFn) implements KeySpec { }

    /** The whole stream is one group: frames hold a single accumulator, no map and no key function per record. */
    record NoKey(OperatorInfo info) implements KeySpec { }
}
