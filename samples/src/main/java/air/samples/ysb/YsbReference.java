package air.samples.ysb;

import java.util.Map;

/**
 * The reference checksums of YSB-SPEC sections 6.3 (YSB, and the process query, which writes YSB's
 * rows), 9 (YSBM), 10 (WA) and 11 (sessions), and of the word count and the enrichment
 * (docs/dataflows.md), all for seed 42, R 100000 (sessions: R 1000).
 */
public final class YsbReference {

    private static final Map<Long, String> SHA256 = Map.of(
            5_000_000L, "918c079abd661bab8445c17beef6f9bfdec2492356713c80f4c1895a67855871",
            20_000_000L, "a9b294aeba081ec563cf7a2dc73b6d9f0daeaeaab2bf20574cf7ba30cd38c1ac",
            100_000_000L, "353f9070c143bdb8ae84216855cea337d2b2fa7052f6d053cc55380ef864d937",
            400_000_000L, "eeb319f3e0afcbd3b35cfdd0a69b652b3eeb5c757c5b76942fcb1079170e496a");

    private static final Map<Long, String> YSBM = Map.of(
            5_000_000L, "1bd40d73c8984fa8a105d5e36b279f4333c9b26b78730f4d6549cd55618f4dca",
            20_000_000L, "d36f4c52f175da5b5dbb58032d206f961f009a623d918b33eac2cb4bd1527a2c",
            100_000_000L, "9e02ffef4ca19d684679d2af5a396569fbcd1d7058cf6a4b371851a1f68b05b9");

    private static final Map<Long, String> WA = Map.of(
            5_000_000L, "597154556dd081f2db0e222936e6767a05db29570bb8034c3e8b5d423c237ea2",
            20_000_000L, "3302fbb7454748d652ea723d22c3b015ee8baf98bbeb526a40e589d2f74e7817",
            100_000_000L, "e2cbc9487cc2ab818235da016db1db07d9fc3df2f79e734f7cb0a0548f905eb6");

    /** The word count's, from this project's own plain loop (docs/dataflows.md): N sentences. */
    private static final Map<Long, String> WORDCOUNT = Map.of(
            1_000_000L, "8d899e650294df6dd71e8215fb5b5e603036cf8bd0fff8fc8171caaeb1d3553a",
            5_000_000L, "6e187b3115f771abefde00c2037c4f3a7d68222d8558034ee0dba5880d2a6569");

    /** The enrichment's, from this project's own plain loop (docs/dataflows.md). */
    private static final Map<Long, String> ENRICH = Map.of(
            5_000_000L, "87a1732e6fefd2520afd8511a9a5ad450e37e9b2198a8b1e02e9342f3a2b9e0e",
            20_000_000L, "cc036f21e7b1ff2aca759b766a01c94868c9ca3a476f309d98c5bc9248b7a193");

    /** The sessions query's (YSB-SPEC 11), for seed 42, R 1000, gap 2000 ms. */
    private static final Map<Long, String> SESSIONS = Map.of(
            100_000L, "1f90dcb6017de672b30ae6cbbc1218644e7d0b225c09f7687a6b04e6aed3e5d8",
            1_000_000L, "4f29bb50c6fb32a6ceed1e5fee45d752fa5daf496809fe31b771cda161fcb321",
            3_000_000L, "89e136d0f2dc798efc3013469b3974766fbda3e5a8c84662a6dfb6b94e11612a");

    private YsbReference() {
    }

    /** The reference checksum of the run {@code args} describes, or null when the spec lists none. */
    public static String sha256(YsbArgs args) {
        if (args.query() == YsbArgs.Query.SESSIONS) {
            return args.seed() == 42 && args.rate() == 1_000 && args.gapMs() == 2_000 ? SESSIONS.get(args.n()) : null;
        }
        return sha256(args.query(), args.n(), args.seed(), args.rate());
    }

    /** The YSB reference checksum for these parameters, or null when the spec lists none. */
    public static String sha256(long n, long seed, long rate) {
        return sha256(YsbArgs.Query.YSB, n, seed, rate);
    }

    /** The reference checksum of {@code query} for these parameters, or null when the spec lists none. */
    public static String sha256(YsbArgs.Query query, long n, long seed, long rate) {
        if (seed != 42 || rate != 100_000) {
            return null;
        }
        return switch (query) {
            case YSB, PROCESS -> SHA256.get(n); // the process query computes YSB's rows its own way
            case YSBM -> YSBM.get(n);
            case WA -> WA.get(n);
            case WORDCOUNT -> WORDCOUNT.get(n);
            case ENRICH -> ENRICH.get(n);
            case USERS, SESSIONS -> null; // sessions: sha256(args), which knows the gap
        };
    }
}
