package air.runtime.impl.routing;

import air.runtime.serial.StableHash;

/**
 * KEY routing: the owner of a key among {@code n} final-aggregate instances. Same on every peer and
 * every JVM: long keys by a fixed mix, object keys by their {@link StableHash} (never an identity hash).
 */
public final class KeyRouting {

    private KeyRouting() {
    }

    public static int ownerOf(long key, int n) {
        long z = key * 0x9E3779B97F4A7C15L;
        z ^= z >>> 29;
        return (int) ((z >>> 1) % n);
    }

    /**
     * The owner of a key held boxed (state restored onto another layout): a {@code Long} of a
     * long-keyed stream ({@code longKeys}) hashes as the primitive, any other key as an object.
     */
    public static int ownerOf(Object key, boolean longKeys, int n) {
        return longKeys ? ownerOf(((Long) key).longValue(), n) : ownerOf(key, n);
    }

    /** Throws an {@code UnstableKeyException} for a key type the stable hash refuses. */
    public static int ownerOf(Object key, int n) {
        int h = StableHash.of(key);
        h ^= h >>> 16;
        return Math.floorMod(h * 0x9E3779B9, n);
    }
}
