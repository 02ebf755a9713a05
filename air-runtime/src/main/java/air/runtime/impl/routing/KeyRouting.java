package air.runtime.impl.routing;

/** KEY routing: the owner of a key among {@code n} final-aggregate instances. Same on every peer. */
public final class KeyRouting {

    private KeyRouting() {
    }

    public static int ownerOf(long key, int n) {
        long z = key * 0x9E3779B97F4A7C15L;
        z ^= z >>> 29;
        return (int) ((z >>> 1) % n);
    }

    public static int ownerOf(Object key, int n) {
        int h = key.hashCode();
        h ^= h >>> 16;
        return Math.floorMod(h * 0x9E3779B9, n);
    }
}
