package air.runtime.api;

import air.wire.WireIn;
import air.wire.WireOut;

/**
 * How values of one type cross between peers and into snapshots: primitive fields written
 * directly, never Java serialization. Optional: where none is given the JVM's {@link Serializer}
 * (Kryo by default) writes the value with its class name; a codec is shorter and faster. The
 * built-in aggregations bring theirs.
 */
public interface Codec<T> {

    void write(T value, WireOut out);

    /** Reads one value; a malformed payload makes {@link WireIn} throw, naming the peer. */
    T read(WireIn in);
}
