package air.runtime.api;

/**
 * How AIR encodes a value for which no {@link Codec} was given: object keys, records crossing an
 * exchange, accumulators and process-function state, across peers and in checkpoints. Each value is
 * written with what identifies its class, so any type can be read back on another peer.
 *
 * <p>The default is {@code air.runtime.serial.KryoSerializer} (Kryo 5). Another one plugs in through
 * {@link java.util.ServiceLoader}: the first provider of this interface on the class path replaces it
 * for the whole JVM, and every peer of a job must use the same. Implementations are thread-safe.
 */
public interface Serializer extends Codec<Object> {

    /** A short name for plans and errors, e.g. {@code kryo}. */
    String name();
}
