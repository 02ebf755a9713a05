package air.runtime.serial;

/** A key type that cannot be hashed the same way on every JVM (see {@link StableHash}), naming it and why. */
public final class UnstableKeyException extends IllegalArgumentException {

    private final Class<?> type;

    public UnstableKeyException(Class<?> type, String why) {
        super("key type " + type.getName() + " cannot be hashed stably across JVMs: " + why);
        this.type = type;
    }

    public Class<?> type() {
        return type;
    }
}
