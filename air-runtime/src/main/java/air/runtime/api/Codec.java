package air.runtime.api;

import air.wire.WireIn;
import air.wire.WireOut;

/**
 * How values of one type cross between peers: primitive fields written directly, never Java
 * serialization. Cluster mode needs one for every accumulator and object key that travels;
 * the built-in aggregations bring theirs.
 */
public interface Codec<T> {

    void write(T value, WireOut out);

    /** Reads one value; a malformed payload makes {@link WireIn} throw, naming the peer. */
    T read(WireIn in);
}
