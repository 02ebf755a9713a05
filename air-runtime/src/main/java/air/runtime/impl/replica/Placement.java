package air.runtime.impl.replica;

/**
 * Which peer hosts each block of instances. Block {@code b} is the instances peer {@code b} started
 * with (global instances {@code b * W .. b * W + W - 1} of every vertex); a takeover moves a dead
 * peer's blocks to the peer that took them over. Readers see a move once they see its version.
 */
public final class Placement {

    private final int[] host;
    private volatile int version;

    public Placement(int peers) {
        host = new int[peers];
        for (int p = 0; p < peers; p++) {
            host[p] = p;
        }
    }

    public int hostOf(int block) {
        int v = version; // the volatile read orders the array read after the move that bumped it
        return v >= 0 ? host[block] : host[block];
    }

    /** Changes whenever a block moves. */
    public int version() {
        return version;
    }

    public synchronized void move(int[] blocks, int to) {
        for (int b : blocks) {
            host[b] = to;
        }
        version++;
    }

    /** The blocks {@code peer} hosts now. */
    public synchronized int[] blocksOn(int peer) {
        return java.util.stream.IntStream.range(0, host.length).filter(b -> host[b] == peer).toArray();
    }
}
