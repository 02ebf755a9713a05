/**
 * Values without a hand-written codec: the JVM's {@link air.runtime.api.Serializer} (Kryo by
 * default, {@link air.runtime.serial.KryoSerializer}) and the stable hash KEY routing places object
 * keys by ({@link air.runtime.serial.StableHash}).
 */
package air.runtime.serial;
