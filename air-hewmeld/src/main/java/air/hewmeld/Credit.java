package air.hewmeld;

/**
 * Exact integer credit. Every epoch of every credit domain is worth {@link #ONE}; it is shared
 * among sources, split on fan-out and added up at the owner, never created or lost, so the owner
 * knows an epoch is complete when, and only when, it holds exactly {@code ONE}.
 */
public final class Credit {

    /** The credit of one epoch in one domain: 2^62, so that sums of parts never overflow. */
    public static final long ONE = 1L << 62;

    private Credit() {
    }

    /** Source {@code instance}'s share of every epoch: {@code ONE / sources}, the remainder to instance 0. */
    public static long shareOf(int instance, int sources) {
        if (sources < 1) {
            throw new IllegalArgumentException("sources must be >= 1, was " + sources);
        }
        if (instance < 0 || instance >= sources) {
            throw new IllegalArgumentException("instance must be in [0, " + sources + "), was " + instance);
        }
        long share = ONE / sources;
        return instance == 0 ? share + ONE % sources : share;
    }

    /** Splits {@code amount} into {@code parts} positive-or-zero integers that sum exactly to it. */
    public static long[] split(long amount, int parts) {
        if (amount < 0) {
            throw new IllegalArgumentException("amount must be >= 0, was " + amount);
        }
        if (parts < 1) {
            throw new IllegalArgumentException("parts must be >= 1, was " + parts);
        }
        long[] out = new long[parts];
        long base = amount / parts;
        long remainder = amount % parts;
        for (int i = 0; i < parts; i++) {
            out[i] = base + (i < remainder ? 1 : 0);
        }
        return out;
    }
}
