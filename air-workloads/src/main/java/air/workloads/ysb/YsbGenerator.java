package air.workloads.ysb;

import org.eclipse.collections.impl.map.mutable.primitive.LongLongHashMap;

/**
 * The YSB-mem generator of YSB-SPEC sections 3 to 5: a counter-based SplitMix64, so event
 * {@code i} is computed from {@code (seed, i)} alone and any instance can generate any subset.
 */
public final class YsbGenerator {

    public static final long GAMMA = 0x9E3779B97F4A7C15L;
    public static final long T0 = 1_700_000_000_000L;
    public static final int CAMPAIGNS = 100;
    public static final int ADS_PER_CAMPAIGN = 10;
    public static final int ADS = CAMPAIGNS * ADS_PER_CAMPAIGN;
    public static final long WINDOW_MS = 10_000;
    static final long SALT_CAMPAIGN = 0x43414D504149474EL;
    static final long SALT_AD = 0x4144494453414C54L;

    private final long seed;
    private final long rate;
    private final long[] campaignIds = new long[CAMPAIGNS];
    private final long[] adIds = new long[ADS];

    public YsbGenerator(long seed, long rate) {
        if (rate <= 0) {
            throw new IllegalArgumentException("YSB rate must be > 0 events per logical second, was " + rate);
        }
        this.seed = seed;
        this.rate = rate;
        long seedC = mix64(seed ^ SALT_CAMPAIGN);
        long seedA = mix64(seed ^ SALT_AD);
        for (int c = 0; c < CAMPAIGNS; c++) {
            campaignIds[c] = draw(seedC, c);
        }
        LongLongHashMap seen = new LongLongHashMap(ADS);
        for (int a = 0; a < ADS; a++) {
            adIds[a] = draw(seedA, a);
            if (seen.containsKey(adIds[a])) {
                throw new IllegalArgumentException("seed " + seed + " gives two equal ad ids (indices " + seen.get(adIds[a])
                        + " and " + a + "): the run is invalid (YSB-SPEC section 4); choose another seed");
            }
            seen.put(adIds[a], a);
        }
    }

    public static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** The k-th output of SplitMix64 started at state s. */
    public static long draw(long s, long k) {
        return mix64(s + (k + 1) * GAMMA);
    }

    /** Event {@code i}, all seven fields. */
    public YsbEvent event(long i) {
        long k = 4 * i;
        long r0 = draw(seed, k);
        long r1 = draw(seed, k + 1);
        long r2 = draw(seed, k + 2);
        long r3 = draw(seed, k + 3);
        long adId = adIds[(int) ((r2 >>> 32) % ADS)];
        int adType = (int) (((r2 >>> 16) & 0xFFFF) % 5);
        int eventType = (int) ((r2 & 0xFFFF) % 3);
        long eventTime = T0 + i * 1000 / rate;
        return new YsbEvent(r0, r1, adId, adType, eventType, eventTime, (int) (r3 >>> 32));
    }

    /** Whether event {@code i} is a view, without materialising it (for the expected total only). */
    public boolean isView(long i) {
        return eventType(i) == YsbEvent.VIEW;
    }

    /** Event {@code i}'s type ({@link YsbEvent#VIEW}, {@code CLICK} or {@code PURCHASE}) without materialising it. */
    public int eventType(long i) {
        return (int) ((draw(seed, 4 * i + 2) & 0xFFFF) % 3);
    }

    /** The join table: ad_id to campaign_id, 1000 entries. */
    public LongLongHashMap adToCampaign() {
        LongLongHashMap table = new LongLongHashMap(ADS);
        for (int a = 0; a < ADS; a++) {
            table.put(adIds[a], campaignIds[a / ADS_PER_CAMPAIGN]);
        }
        return table;
    }

    public long campaignId(int c) {
        return campaignIds[c];
    }

    public long adId(int a) {
        return adIds[a];
    }

    public long seed() {
        return seed;
    }

    public long rate() {
        return rate;
    }

    /** Windows of {@code n} events: {@code ceil(n / (10 R))}. */
    public long windows(long n) {
        long perWindow = WINDOW_MS / 1000 * rate;
        return (n + perWindow - 1) / perWindow;
    }
}
