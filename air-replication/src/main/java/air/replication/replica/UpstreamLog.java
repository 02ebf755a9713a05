package air.replication.replica;

import air.runtime.impl.shuffle.ShuffleItem;
import air.runtime.impl.shuffle.ShuffleItemCodec;
import java.util.ArrayDeque;
import java.util.function.Consumer;
import java.util.function.IntToLongFunction;

/**
 * What one producer sent to each destination on another peer, in order, each item tagged with the
 * number of the producer's last barrier before it. An item tagged {@code t} is in every snapshot
 * numbered above {@code t} of the destination, so once its host has replicated snapshot {@code c},
 * items tagged below {@code c} can go. It counts the bytes it holds (by the items' encoded size
 * estimate), so that its output can hold the producer back when it grows past a bound. Not
 * thread-safe: its output guards it.
 */
final class UpstreamLog {

    private record Entry(ShuffleItem item, long tag, int bytes) { }

    private final ArrayDeque<Entry>[] perDestination;
    private long bytes;

    @SuppressWarnings({"unchecked", "rawtypes"}) // an array of generic deques
    UpstreamLog(int destinations) {
        perDestination = new ArrayDeque[destinations];
        for (int d = 0; d < destinations; d++) {
            perDestination[d] = new ArrayDeque<>();
        }
    }

    void add(int destination, ShuffleItem item, long tag) {
        Entry e = new Entry(item, tag, ShuffleItemCodec.sizeHint(item));
        perDestination[destination].add(e);
        bytes += e.bytes();
    }

    /** What the log holds, in encoded bytes (estimated). */
    long bytes() {
        return bytes;
    }

    /** Whether some item is tagged below {@code barrier}: a snapshot already under way past it would let it go. */
    boolean holdsBefore(long barrier) {
        for (ArrayDeque<Entry> l : perDestination) {
            if (!l.isEmpty() && l.peekFirst().tag() < barrier) {
                return true;
            }
        }
        return false;
    }

    /** Drops, per destination, the items tagged below what its host has replicated ({@code safe}). */
    void trim(IntToLongFunction safe) {
        for (int d = 0; d < perDestination.length; d++) {
            ArrayDeque<Entry> l = perDestination[d];
            if (l.isEmpty()) {
                continue;
            }
            long cut = safe.applyAsLong(d);
            while (!l.isEmpty() && l.peekFirst().tag() < cut) {
                bytes -= l.pollFirst().bytes();
            }
        }
    }

    /** Every item kept for {@code destination}, oldest first. */
    void replay(int destination, Consumer<ShuffleItem> to) {
        for (Entry e : perDestination[destination]) {
            to.accept(e.item());
        }
    }

    void clear(int destination) {
        for (Entry e : perDestination[destination]) {
            bytes -= e.bytes();
        }
        perDestination[destination].clear();
    }

    int size() {
        int n = 0;
        for (ArrayDeque<Entry> l : perDestination) {
            n += l.size();
        }
        return n;
    }
}
