package air.runtime.impl.ops;

import air.runtime.api.TimeSource;
import air.runtime.operator.Rescale;
import air.runtime.plan.OperatorInfo;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * {@link TimestampOp} for a source instance that reads several splits in turn (Kafka partitions,
 * files): event time per split, as Flink's per-split watermarks (FLIP-27). Which split a record
 * comes from is what the reader last told the {@link SplitCursor}. Each split keeps the newest
 * timestamp it gave; a record more than the allowed disorder behind its own split's newest is late
 * by the rule, whatever the other splits did, so records in event-time order within their split
 * are never late for a split that happened to be read ahead. The watermark published is the least
 * over the splits that hold it of {@code newest - allowedDisorder - 1}, at most once per batch and
 * once per interval, and never goes back. Splits that hold it: every owned, unfinished split that
 * is not idle; one that has given no record yet holds it where it is (as an instance does before
 * its first record). A split read and found without records when {@code idleTimeoutNanos} had
 * passed since its last record (or since it came) stops holding until its next record, which may
 * be late (the rule of idle instances, per split); a finished split stops holding. Idleness needs
 * a read that found nothing, not only time: a source slowed down by backpressure, whose round of
 * reads takes longer than the timeout, does not idle splits that were simply not read yet. While no split holds, the instance's
 * newest timestamp counts, and once the whole instance has been quiet for the idle timeout it
 * publishes the idle estimate as {@link TimestampOp} does.
 *
 * <p>Just before a record late by its split's rule, it publishes the least over the splits then, so
 * that which records the stages behind judge late depends on the input, not on when the last
 * periodic publication happened. Records late by their split's rule but above that least are not
 * late downstream: another split still holds their windows open.
 *
 * <p>Its snapshot is that of {@link TimestampOp} (the instance's newest, the last watermark, the
 * records received) followed by each owned split's newest timestamp by split id, so that after a
 * restore every split judges lateness from where it was and the watermark holds as it did: the
 * same input gives the same late records with or without a failure between.
 */
public final class SplitTimestampOp<T> extends ForwardingOperator<T, T> implements Snapshotting {

    private final ToLongFunction<? super T> timestampFn;
    private final BadRecordHandler badRecords;
    private final long allowedDisorder;
    private final SplitCursor splits;
    /** The split of the records now coming, and its newest timestamp (kept here, not in {@link #maxSeen}, while it is current). */
    private int split = -1;
    private long seen = Long.MIN_VALUE;
    private long received;
    private final long intervalNanos;
    private final long idleTimeoutNanos;
    private final EventClock clock;
    private final TimeSource time;
    private long lastWatermark = Long.MIN_VALUE;
    private long lastPublishedNanos = Long.MIN_VALUE;
    /** Per split, by its cursor index: its newest timestamp, when it last had records (or came), its reads seen, whether idle. */
    private long[] maxSeen = new long[0];
    private long[] activeAtNanos = new long[0];
    private long[] pollsSeen = new long[0];
    private boolean[] idle = new boolean[0];
    /** The splits whose state above is set up, and the cursor's change count then. */
    private int known;
    private int knownChanges = -1;
    /** The indexes of the owned, unfinished splits, as of {@link #knownChanges}: what the per-batch work looks at. */
    private int[] live = new int[4];
    private int liveCount;
    /** Records received when the current split became current: more since means it had records. */
    private long receivedAtSwitch;
    /** The splits that had records in this batch (besides the current one). */
    private int[] touched = new int[4];
    private int touchedCount;
    /** When the last batch ended (with an idle timeout only): the reads of a batch come after it. */
    private long lastBatchNanos = Long.MIN_VALUE;
    /** Whether any split held the watermark in the last {@link #bound}. */
    private boolean holding;
    /** The newest timestamp of every split: where the idle estimate starts. */
    private long newest = Long.MIN_VALUE;
    private long receivedAtBatch;
    private long quietSinceNanos = Long.MIN_VALUE;
    /** Splits' newest timestamps from a snapshot, by id, until the reader owns each again. */
    private final Map<String, Long> restored = new HashMap<>();
    @SuppressWarnings("unused")
    private long q00, q01, q02, q03, q04, q05, q06, q07; // after the hot fields: keeps the next object off their cache line

    public SplitTimestampOp(OperatorInfo info, ToLongFunction<? super T> timestampFn, BadRecordHandler badRecords, long allowedDisorder,
                            long intervalNanos, long idleTimeoutNanos, EventClock clock, TimeSource time, SplitCursor splits,
                            Inlet<? super T> next) {
        super(info, next);
        this.timestampFn = timestampFn;
        this.badRecords = badRecords;
        this.allowedDisorder = allowedDisorder;
        this.intervalNanos = intervalNanos;
        this.idleTimeoutNanos = idleTimeoutNanos;
        this.clock = clock;
        this.time = time;
        this.splits = splits;
    }

    @Override
    public void accept(long ignored, T item) {
        int s = splits.current();
        if (s != split) {
            switchTo(s);
        }
        received++;
        long ts = TimestampOp.eventTime(timestampFn, badRecords, ignored, item);
        if (ts == NO_TIMESTAMP) {
            return;
        }
        if (ts > seen) {
            seen = ts;
        } else if (ts < seen - allowedDisorder && seen - allowedDisorder > Long.MIN_VALUE + 1) {
            onLate();
        }
        next.accept(ts, item);
    }

    /** Once per batch at most (the reader reads one split per batch): the records now come from split {@code s}. */
    private void switchTo(int s) {
        if (s < 0) {
            throw new IllegalStateException(info.name() + ": a record from no split (the reader named none before emitting)");
        }
        leave();
        if (s >= known || splits.changes() != knownChanges) {
            sync();
        }
        split = s;
        seen = maxSeen[s];
    }

    /** Puts the current split's newest back, and notes that it had records since it became current. */
    private void leave() {
        if (split >= 0) {
            maxSeen[split] = seen;
            if (seen > newest) {
                newest = seen;
            }
            if (received != receivedAtSwitch) {
                if (touchedCount == touched.length) {
                    touched = Arrays.copyOf(touched, touchedCount * 2);
                }
                touched[touchedCount++] = split;
            }
        }
        receivedAtSwitch = received;
    }

    /** Sets up the splits the reader added since: each starts from its restored newest, or holds until its first record. */
    private void sync() {
        int n = splits.size();
        if (n > maxSeen.length) {
            int capacity = Math.max(4, Math.max(n, maxSeen.length * 2));
            maxSeen = Arrays.copyOf(maxSeen, capacity);
            activeAtNanos = Arrays.copyOf(activeAtNanos, capacity);
            pollsSeen = Arrays.copyOf(pollsSeen, capacity);
            idle = Arrays.copyOf(idle, capacity);
        }
        long now = idleTimeoutNanos > 0 ? time.nanoTime() : 0;
        for (int s = known; s < n; s++) {
            Long before = restored.remove(splits.id(s));
            maxSeen[s] = before == null ? Long.MIN_VALUE : before;
            activeAtNanos[s] = now;
            pollsSeen[s] = splits.polls(s);
            idle[s] = false;
        }
        known = n;
        knownChanges = splits.changes();
        liveCount = 0;
        for (int s = 0; s < n; s++) {
            if (splits.live(s)) {
                if (liveCount == live.length) {
                    live = Arrays.copyOf(live, liveCount * 2);
                }
                live[liveCount++] = s;
            }
        }
    }

    /**
     * A record more than the allowed disorder behind its split's newest: late by the rule. The
     * watermark goes up to the least over the splits first (it is a bound, whatever the interval
     * says), so that the stages behind judge the record late exactly when it is behind that.
     */
    private void onLate() {
        maxSeen[split] = seen;
        newest = Math.max(newest, seen);
        if (splits.changes() != knownChanges) {
            sync(); // a split added since holds too
        }
        long bound = bound();
        if (bound > lastWatermark) {
            lastWatermark = bound;
            next.onWatermark(bound);
        }
    }

    /**
     * The least over the holding splits of {@code newest - allowedDisorder - 1}; MIN_VALUE while one
     * of them has no record yet; while none holds, the instance's newest less the disorder.
     */
    private long bound() {
        long least = Long.MAX_VALUE;
        holding = false;
        for (int i = 0; i < liveCount; i++) {
            int s = live[i];
            if (!idle[s]) {
                holding = true;
                long m = maxSeen[s];
                if (m == Long.MIN_VALUE) {
                    return Long.MIN_VALUE;
                }
                least = Math.min(least, m);
            }
        }
        long base = holding ? least : newest;
        return base == Long.MIN_VALUE ? Long.MIN_VALUE : base - allowedDisorder - 1;
    }

    @Override
    public void emit(T item) {
        accept(NO_TIMESTAMP, item);
    }

    @Override
    public void onWatermark(long watermark) {
        // event time starts here: upstream progress has no meaning below this operator
    }

    @Override
    public void onEndOfBatch() {
        leave();
        boolean changed = splits.changes() != knownChanges;
        if (changed) {
            sync();
        }
        long now = 0;
        if (idleTimeoutNanos > 0) {
            now = time.nanoTime();
            markIdle(now);
        }
        touchedCount = 0;
        if (received != receivedAtBatch) {
            receivedAtBatch = received;
            if (idleTimeoutNanos > 0) {
                // quiet from the last batch with records on: the instance's idle timeout counts from there
                quietSinceNanos = now;
                if (newest > clock.newest()) {
                    clock.observe(newest, now);
                }
            }
            publish(now, false);
        } else if (idleTimeoutNanos > 0) {
            if (quietSinceNanos == Long.MIN_VALUE) {
                quietSinceNanos = now;
            }
            publish(now, now - quietSinceNanos >= idleTimeoutNanos);
        } else if (changed) {
            publish(now, false); // a split finished: it may have been the one holding
        }
        next.onEndOfBatch();
    }

    /**
     * A split read in this batch without records for this operator, past the idle timeout since
     * its last record, is idle; a split with records is not.
     */
    private void markIdle(long now) {
        long readAfter = lastBatchNanos; // this batch's reads came after the last batch ended
        for (int i = 0; i < liveCount; i++) {
            int s = live[i];
            long p = splits.polls(s);
            if (p != pollsSeen[s]) {
                pollsSeen[s] = p;
                if (readAfter != Long.MIN_VALUE && readAfter - activeAtNanos[s] >= idleTimeoutNanos) {
                    idle[s] = true;
                }
            }
        }
        for (int i = 0; i < touchedCount; i++) {
            activeAtNanos[touched[i]] = now;
            idle[touched[i]] = false;
        }
        lastBatchNanos = now;
    }

    /**
     * Periodic publication of the least over the splits (a quiet batch too: a split may have gone
     * idle or finished); {@code instanceIdle}: the whole instance has been quiet for the idle timeout, and when
     * no split holds, the idle estimate counts as well.
     */
    private void publish(long now, boolean instanceIdle) {
        if (intervalNanos > 0 && lastPublishedNanos != Long.MIN_VALUE && System.nanoTime() - lastPublishedNanos < intervalNanos) {
            return;
        }
        long wm = bound();
        if (instanceIdle && !holding) {
            long estimate = clock.estimateAt(now); // includes this instance's own newest timestamp
            if (estimate != Long.MIN_VALUE) {
                wm = Math.max(wm, estimate - allowedDisorder - 1);
            }
        }
        if (wm > lastWatermark) {
            lastWatermark = wm;
            if (intervalNanos > 0) {
                lastPublishedNanos = System.nanoTime();
            }
            next.onWatermark(wm);
        }
    }

    @Override
    public long received() {
        return received;
    }

    /** {@link TimestampOp}'s layout, then the owned splits' newest timestamps by id. */
    @Override
    public void snapshotTo(WireOut out, long checkpointId) {
        if (split >= 0) {
            maxSeen[split] = seen;
        }
        if (splits.changes() != knownChanges) {
            sync();
        }
        out.putLong(Math.max(newest, seen)).putLong(lastWatermark).putLong(received);
        int n = 0;
        for (int i = 0; i < liveCount; i++) {
            n += maxSeen[live[i]] != Long.MIN_VALUE ? 1 : 0;
        }
        out.putInt(n);
        for (int i = 0; i < liveCount; i++) {
            int s = live[i];
            if (maxSeen[s] != Long.MIN_VALUE) {
                out.putString(splits.id(s)).putLong(maxSeen[s]);
            }
        }
    }

    @Override
    public void restoreFrom(WireIn in) {
        newest = in.getLong();
        lastWatermark = in.getLong();
        received = in.getLong();
        restored.clear();
        readSplits(in);
        restarted();
    }

    /**
     * Onto another layout: as {@link TimestampOp} (the lowest watermark of every earlier instance,
     * the records of those it takes), and every split's newest from whichever earlier instance had
     * it: the splits this instance owns now judge lateness from where they were.
     */
    @Override
    public void restoreRescaled(Rescale rescale) {
        long lowestSeen = Long.MAX_VALUE;
        long lowestWatermark = Long.MAX_VALUE;
        long count = 0;
        boolean any = false;
        restored.clear();
        for (int i = 0; i < rescale.instancesBefore(); i++) {
            WireIn in = rescale.newest(i);
            if (in != null) {
                any = true;
                lowestSeen = Math.min(lowestSeen, in.getLong());
                lowestWatermark = Math.min(lowestWatermark, in.getLong());
                long r = in.getLong();
                count += rescale.takes(i) ? r : 0;
                readSplits(in);
            }
        }
        if (any) {
            newest = lowestSeen;
            lastWatermark = lowestWatermark;
            received = count;
            restarted();
        }
    }

    /** The splits' section of a snapshot, into {@link #restored}; none in one that {@link TimestampOp} wrote. */
    private void readSplits(WireIn in) {
        if (in.remaining() == 0) {
            return;
        }
        int n = in.getCount(9);
        for (int i = 0; i < n; i++) {
            String id = in.getString();
            long m = in.getLong();
            Long other = restored.get(id);
            if (other == null || other < m) {
                restored.put(id, m);
            }
        }
    }

    /** After a restore: every split is set up again from {@link #restored} when next looked at. */
    private void restarted() {
        receivedAtBatch = received;
        receivedAtSwitch = received;
        split = -1;
        seen = Long.MIN_VALUE;
        known = 0;
        knownChanges = -1;
        liveCount = 0;
        touchedCount = 0;
    }
}
