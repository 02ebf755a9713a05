package air.runtime.impl.ops;

/**
 * What a final window instance is waiting for, published for other threads: the start of its
 * oldest open epoch ({@code Long.MAX_VALUE} when none) and the upstream instances that still hold
 * its credit (hew-meld) or hold back the watermark.
 */
public record ProgressSnapshot(long oldestOpenEpoch, int[] holders) {

    public static final ProgressSnapshot IDLE = new ProgressSnapshot(Long.MAX_VALUE, new int[0]);

    public boolean waiting() {
        return oldestOpenEpoch != Long.MAX_VALUE;
    }
}
