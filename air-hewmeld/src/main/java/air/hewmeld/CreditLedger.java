package air.hewmeld;

import air.wire.WireIn;
import air.wire.WireOut;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.collections.impl.map.mutable.primitive.LongLongHashMap;
import org.eclipse.collections.impl.set.mutable.primitive.LongHashSet;

/**
 * The owner's side of hew-meld for one credit domain: melds the credit that arrives for each
 * epoch and says when an epoch holds exactly {@link Credit#ONE}. Pure data: no threads, no I/O.
 *
 * <p>Credit arrives two ways: as point credit for one epoch (a source's share, or a part of it
 * split on the way), and as a range release, with which a source hands over its whole share of
 * every epoch in {@code [from, to)} at once (the epochs it had no data for, including the open
 * end at end of input). Only epochs the owner has heard of (point credit) are tracked; a range
 * adds to them, and to those it hears of later.
 *
 * <p>Violations of the protocol (credit beyond ONE, a second release of an epoch by the same
 * source, credit for an epoch already completed) throw {@link IllegalStateException}: they mean
 * lost or duplicated messages, never something to round away.
 *
 * <p>Memory stays flat however many epochs pass: the owner tells the ledger its low-water mark
 * ({@link #compactBelow}: every epoch below it complete and no credit for it still to come, since
 * each source releases in ascending order over a FIFO channel), and the ledger forgets the ids of
 * completed epochs and the release ranges below it, keeping only the mark; credit or a release
 * below the mark is still refused as duplicated.
 */
public final class CreditLedger {

    /** What is known of one epoch. */
    private static final class Epoch {
        long credit;
        final LongLongHashMap byOrigin = new LongLongHashMap();
    }

    private final long[] shares;
    private final List<TreeMap<Long, Long>> released = new ArrayList<>();
    private final TreeMap<Long, Epoch> open = new TreeMap<>();
    private final LongHashSet completed = new LongHashSet();
    /** Every epoch below this is complete and forgotten. */
    private long compactedBelow = Long.MIN_VALUE;

    /** A ledger for a domain fed by {@code sources} sources with the shares of {@link Credit#shareOf}. */
    public CreditLedger(int sources) {
        shares = new long[sources];
        for (int s = 0; s < sources; s++) {
            shares[s] = Credit.shareOf(s, sources);
            released.add(new TreeMap<>());
        }
    }

    /**
     * Adds point credit for {@code epoch} from source {@code origin}.
     *
     * @return true when the epoch became complete with this credit
     */
    public boolean add(long epoch, int origin, long amount) {
        if (amount < 0) {
            throw new IllegalArgumentException("credit must be >= 0, was " + amount);
        }
        if (completed.contains(epoch) || epoch < compactedBelow) {
            throw new IllegalStateException("credit " + amount + " from source " + origin + " for epoch " + epoch
                    + " which is already complete: duplicated credit");
        }
        if (covers(origin, epoch)) {
            throw new IllegalStateException("source " + origin + " sent point credit for epoch " + epoch
                    + " which it already released as part of a range");
        }
        Epoch e = epoch(epoch);
        e.byOrigin.addToValue(origin, amount);
        if (e.byOrigin.get(origin) > shares[origin]) {
            throw new IllegalStateException("source " + origin + " gave " + e.byOrigin.get(origin) + " for epoch " + epoch
                    + ", more than its share " + shares[origin] + ": duplicated credit");
        }
        return credit(epoch, e, amount);
    }

    /**
     * Source {@code origin} hands over its whole share of every epoch in {@code [from, to)}.
     *
     * @return the known epochs this completed, ascending
     */
    public List<Long> release(int origin, long from, long to) {
        if (to <= from) {
            return List.of();
        }
        TreeMap<Long, Long> ranges = released.get(origin);
        if (from < compactedBelow) {
            throw new IllegalStateException("source " + origin + " released [" + from + ", " + to + ") but every epoch below "
                    + compactedBelow + " is complete already: a duplicated release");
        }
        Map.Entry<Long, Long> before = ranges.floorEntry(to - 1);
        if (before != null && before.getValue() > from) {
            throw new IllegalStateException("source " + origin + " released [" + from + ", " + to + ") but already released ["
                    + before.getKey() + ", " + before.getValue() + ")");
        }
        List<Long> done = new ArrayList<>();
        // copy the keys: removing from a TreeMap may move another entry's contents into a removed node
        for (long epoch : List.copyOf(open.subMap(from, true, to, false).keySet())) {
            Epoch e = open.get(epoch);
            if (e.byOrigin.containsKey(origin)) {
                throw new IllegalStateException("source " + origin + " released epoch " + epoch
                        + " in a range after sending point credit for it");
            }
            if (credit(epoch, e, shares[origin])) {
                done.add(epoch);
            }
        }
        ranges.put(from, to);
        return done;
    }

    private Epoch epoch(long epoch) {
        Epoch e = open.get(epoch);
        if (e == null) {
            e = new Epoch();
            for (int s = 0; s < shares.length; s++) {
                if (covers(s, epoch)) {
                    e.credit += shares[s];
                }
            }
            open.put(epoch, e);
        }
        return e;
    }

    private boolean credit(long epoch, Epoch e, long amount) {
        e.credit += amount;
        if (e.credit > Credit.ONE) {
            throw new IllegalStateException("epoch " + epoch + " holds " + e.credit + " > ONE: credit was created");
        }
        if (e.credit == Credit.ONE) {
            open.remove(epoch);
            completed.add(epoch);
            return true;
        }
        return false;
    }

    private boolean covers(int origin, long epoch) {
        Map.Entry<Long, Long> range = released.get(origin).floorEntry(epoch);
        return range != null && epoch < range.getValue();
    }

    public boolean isComplete(long epoch) {
        return epoch < compactedBelow || completed.contains(epoch);
    }

    /**
     * The owner's low-water mark: every epoch below {@code mark} is complete and no source will send
     * credit for one (each released in ascending order up to at least it). Forgets what is below.
     */
    public void compactBelow(long mark) {
        if (mark <= compactedBelow) {
            return;
        }
        if (!open.isEmpty() && open.firstKey() < mark) {
            throw new IllegalStateException("compacting below " + mark + " but epoch " + open.firstKey() + " is still incomplete");
        }
        compactedBelow = mark;
        completed.removeIf(e -> e < mark);
        for (TreeMap<Long, Long> ranges : released) {
            ranges.headMap(mark, false).entrySet().removeIf(r -> r.getValue() <= mark);
        }
    }

    /** What the ledger holds: completed ids, release ranges and open epochs (flat once compacted as progress moves). */
    public int retained() {
        int n = completed.size() + open.size();
        for (TreeMap<Long, Long> ranges : released) {
            n += ranges.size();
        }
        return n;
    }

    /** The oldest epoch heard of but not complete, or {@code Long.MAX_VALUE}. */
    public long oldestIncomplete() {
        return open.isEmpty() ? Long.MAX_VALUE : open.firstKey();
    }

    /** The sources that still hold credit of {@code epoch}: the answer to "why is my window not firing?". */
    public List<Integer> holders(long epoch) {
        List<Integer> holders = new ArrayList<>();
        if (isComplete(epoch)) {
            return holders;
        }
        Epoch e = open.get(epoch);
        for (int s = 0; s < shares.length; s++) {
            long given = covers(s, epoch) ? shares[s] : e == null ? 0 : e.byOrigin.get(s);
            if (given < shares[s]) {
                holders.add(s);
            }
        }
        return holders;
    }

    /** Credit held so far for {@code epoch} (ONE once complete). */
    public long creditOf(long epoch) {
        if (isComplete(epoch)) {
            return Credit.ONE;
        }
        Epoch e = open.get(epoch);
        if (e != null) {
            return e.credit;
        }
        long c = 0;
        for (int s = 0; s < shares.length; s++) {
            c += covers(s, epoch) ? shares[s] : 0;
        }
        return c;
    }

    /** Writes the whole state, for a checkpoint. */
    public void snapshotTo(WireOut out) {
        out.putInt(shares.length);
        out.putLong(compactedBelow);
        for (TreeMap<Long, Long> ranges : released) {
            out.putInt(ranges.size());
            ranges.forEach((from, to) -> out.putLong(from).putLong(to));
        }
        out.putInt(open.size());
        open.forEach((epoch, e) -> {
            out.putLong(epoch).putLong(e.credit).putInt(e.byOrigin.size());
            e.byOrigin.forEachKeyValue((origin, amount) -> out.putLong(origin).putLong(amount));
        });
        out.putInt(completed.size());
        completed.each(out::putLong);
    }

    /** Replaces the state with one written by {@link #snapshotTo} for as many sources. */
    public void restoreFrom(WireIn in) {
        int sources = in.getCount(4);
        if (sources != shares.length) {
            throw in.malformed("credit state for " + sources + " sources, this ledger has " + shares.length);
        }
        compactedBelow = in.getLong();
        for (TreeMap<Long, Long> ranges : released) {
            ranges.clear();
            for (int n = in.getCount(16); n > 0; n--) {
                ranges.put(in.getLong(), in.getLong());
            }
        }
        open.clear();
        for (int n = in.getCount(20); n > 0; n--) {
            long epoch = in.getLong();
            Epoch e = new Epoch();
            e.credit = in.getLong();
            for (int k = in.getCount(16); k > 0; k--) {
                e.byOrigin.put(in.getLong(), in.getLong());
            }
            open.put(epoch, e);
        }
        completed.clear();
        for (int n = in.getCount(8); n > 0; n--) {
            completed.add(in.getLong());
        }
    }
}
