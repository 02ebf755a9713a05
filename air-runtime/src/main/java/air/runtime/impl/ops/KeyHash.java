package air.runtime.impl.ops;

import air.runtime.impl.failure.OperatorFailure;
import air.runtime.impl.routing.KeyRouting;
import air.runtime.plan.OperatorInfo;
import air.runtime.serial.StableHash;
import air.runtime.serial.UnstableKeyException;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * The key of a record of a keyed stream and the instance that owns it, hashed exactly as KEY
 * routing hashes a window's keys ({@link KeyRouting}), so that a KEY exchange and the process
 * function behind it agree on every peer. A long key ({@code keyByLong}) is boxed as a
 * {@code Long}; a key function that throws, returns null or returns a key whose type cannot be
 * hashed stably ({@link StableHash}) fails the {@code keyBy} stage, on every worker count.
 */
public final class KeyHash {

    private final OperatorInfo keyInfo;
    private final ToLongFunction<Object> longKey;
    private final Function<Object, Object> objectKey;
    /** The key class last found stable (a racy cache: at worst a class is checked again). */
    private Class<?> checkedClass;

    /** Exactly one of {@code longKey} and {@code objectKey} is given. */
    @SuppressWarnings("unchecked")
    public KeyHash(OperatorInfo keyInfo, ToLongFunction<?> longKey, Function<?, ?> objectKey) {
        if ((longKey == null) == (objectKey == null)) {
            throw new IllegalArgumentException(keyInfo.name() + ": give a long key function or an object key function");
        }
        this.keyInfo = keyInfo;
        this.longKey = (ToLongFunction<Object>) longKey;
        this.objectKey = (Function<Object, Object>) objectKey;
    }

    /** The owner of {@code record}'s key among {@code n} instances. */
    public int destination(Object record, int n) {
        if (n == 1) {
            return 0;
        }
        try {
            if (longKey != null) {
                return KeyRouting.ownerOf(longKey.applyAsLong(record), n);
            }
            return KeyRouting.ownerOf(requireKey(objectKey.apply(record), record), n);
        } catch (RuntimeException e) {
            throw e instanceof OperatorFailure f ? f : new OperatorFailure(keyInfo, "threw on " + OperatorFailure.preview(record), e);
        }
    }

    /** {@code record}'s key ({@code Long} for a long key). */
    public Object keyOf(Object record) {
        try {
            return longKey != null ? (Object) longKey.applyAsLong(record) : requireKey(objectKey.apply(record), record);
        } catch (RuntimeException e) {
            throw e instanceof OperatorFailure f ? f : new OperatorFailure(keyInfo, "threw on " + OperatorFailure.preview(record), e);
        }
    }

    /** The owner of key {@code key} ({@link #keyOf}) among {@code n} instances: what {@link #destination} gives its records. */
    public int ownerOfKey(Object key, int n) {
        if (n == 1) {
            return 0;
        }
        return KeyRouting.ownerOf(key, longKey != null, n);
    }

    /** Whether keys are longs (written as such in snapshots). */
    public boolean longKeys() {
        return longKey != null;
    }

    private Object requireKey(Object key, Object record) {
        if (key == null) {
            throw new OperatorFailure(keyInfo, "returned a null key for " + OperatorFailure.preview(record),
                    new NullPointerException("key"));
        }
        if (key.getClass() != checkedClass) {
            try {
                StableHash.check(key);
            } catch (UnstableKeyException e) {
                throw new OperatorFailure(keyInfo, "returned key " + OperatorFailure.preview(key) + " for " + OperatorFailure.preview(record), e);
            }
            checkedClass = key.getClass();
        }
        return key;
    }
}
