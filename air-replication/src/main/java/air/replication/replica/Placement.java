package air.replication.replica;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.IntStream;

/**
 * Which peer hosts each block of instances. Block {@code b} is the instances peer {@code b} started
 * with (global instances {@code b * W .. b * W + W - 1} of every vertex); a takeover moves a dead
 * peer's blocks to the peer that took them over. The version changes with every move, after it.
 */
public final class Placement {

    private final AtomicIntegerArray host;
    private volatile int version;

    public Placement(int peers) {
        host = new AtomicIntegerArray(peers);
        for (int p = 0; p < peers; p++) {
            host.set(p, p);
        }
    }

    public int hostOf(int block) {
        return host.get(block);
    }

    /** Changes whenever a block moves. */
    public int version() {
        return version;
    }

    public synchronized void move(int[] blocks, int to) {
        for (int b : blocks) {
            host.set(b, to);
        }
        version++;
    }

    /** The blocks {@code peer} hosts now. */
    public synchronized int[] blocksOn(int peer) {
        return IntStream.range(0, host.length()).filter(b -> host.get(b) == peer).toArray();
    }
}
