package air.runtime.impl.inbound;

import air.wire.WireIn;
import air.wire.WireOut;

/**
 * Counts the producers of an inbound edge that ended. A producer restored as already finished
 * says so again, so only its first end of stream counts.
 */
public final class EndOfStreamCounter {

    private final boolean[] ended;
    private int count;

    public EndOfStreamCounter(int producers) {
        this.ended = new boolean[producers];
    }

    /** @return true for the producer's first end of stream, false for a repeat */
    public boolean end(int producer) {
        if (ended[producer]) {
            return false;
        }
        ended[producer] = true;
        count++;
        return true;
    }

    public boolean ended(int producer) {
        return ended[producer];
    }

    public boolean allEnded() {
        return count == ended.length;
    }

    public void snapshotTo(WireOut out) {
        out.putInt(ended.length);
        for (boolean e : ended) {
            out.putByte(e ? 1 : 0);
        }
    }

    public void restoreFrom(WireIn in) {
        int producers = in.getCount(1);
        if (producers != ended.length) {
            throw in.malformed("checkpointed state for " + producers + " producers, this instance has " + ended.length);
        }
        count = 0;
        for (int p = 0; p < producers; p++) {
            ended[p] = in.getByte() == 1;
            count += ended[p] ? 1 : 0;
        }
    }
}
