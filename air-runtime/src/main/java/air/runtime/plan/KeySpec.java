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

    /**
     * An object key; {@code keyType} is the key's class when the user gave it ({@code keyBy(fn, type)}), null when only
     * the keys themselves tell (key functions' types are erased): then each new key's class is checked as it is met.
     */
    record ObjectKey(OperatorInfo info, Function<?, ?> keyFn, Class<?> keyType) implements KeySpec {
        public ObjectKey(OperatorInfo info, Function<?, ?> keyFn) {
            this(info, keyFn, null);
        }
    }

    /** The whole stream is one group: frames hold a single accumulator, no map and no key function per record. */
    record NoKey(OperatorInfo info) implements KeySpec { }
}
