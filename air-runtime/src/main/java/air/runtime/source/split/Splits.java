package air.runtime.source.split;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * A connector's view of its input as splits: what exists now, who reads each, and how to read one.
 * Implementations are shared by every instance on a peer, so they must be thread-safe (most hold
 * only configuration).
 */
public interface Splits<T> {

    /**
     * The ids of every split that exists now. Every peer must list the same id for the same split,
     * and an id, once listed, must keep naming the same data. Called when an instance starts and then
     * every {@link #discoveryInterval} (never when that is zero).
     */
    List<String> discover() throws IOException;

    /**
     * The instance, {@code 0 <= owner < parallelism}, that reads {@code split}: a pure function of
     * its arguments, the same on every peer. The default spreads ids by a stable hash; a connector
     * with numbered splits (Kafka partitions) may deal them out in turn.
     */
    default int ownerOf(String split, int parallelism) {
        int h = split.hashCode() * 0x9E3779B9;
        return Math.floorMod(h ^ (h >>> 16), parallelism);
    }

    /** Opens {@code split} at {@code position} (a {@link SplitReader#position} it gave before), or at its start when null. */
    SplitReader<T> open(String split, byte[] position, SplitContext context) throws IOException;

    /**
     * How often to look for new splits (a file dropped in a watched directory, a partition added);
     * {@link Duration#ZERO}: the splits listed at the start are all there are, and the source ends
     * once each is {@linkplain SplitReader#FINISHED finished}.
     */
    Duration discoveryInterval();

    /**
     * Why positions of this connector cannot be replayed (a socket: what was read is gone), naming
     * the fix; null (the default) when a split reopened at a saved position reads the same records
     * again. Jobs with checkpoints or replicas refuse a source that is not replayable.
     */
    default String notReplayableBecause() {
        return null;
    }

    /** One line for plans and messages, e.g. {@code files(/data/in, *.json)}. */
    String describe();
}
