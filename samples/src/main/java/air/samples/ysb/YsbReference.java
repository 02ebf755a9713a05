package air.samples.ysb;

import java.util.Map;

/** The reference checksums of YSB-SPEC section 6.3 (seed 42, R 100000). */
public final class YsbReference {

    private static final Map<Long, String> SHA256 = Map.of(
            5_000_000L, "918c079abd661bab8445c17beef6f9bfdec2492356713c80f4c1895a67855871",
            20_000_000L, "a9b294aeba081ec563cf7a2dc73b6d9f0daeaeaab2bf20574cf7ba30cd38c1ac",
            100_000_000L, "353f9070c143bdb8ae84216855cea337d2b2fa7052f6d053cc55380ef864d937",
            400_000_000L, "eeb319f3e0afcbd3b35cfdd0a69b652b3eeb5c757c5b76942fcb1079170e496a");

    private YsbReference() {
    }

    /** The reference checksum for these parameters, or null when the spec lists none. */
    public static String sha256(long n, long seed, long rate) {
        return seed == 42 && rate == 100_000 ? SHA256.get(n) : null;
    }
}
