package air.runtime.impl.ops;

import air.runtime.api.KeyedProcessFunction;
import air.runtime.api.OutputTag;
import air.runtime.api.ProcessContext;
import air.runtime.api.StateDescriptor;
import air.runtime.api.TimeDomain;
import air.runtime.api.TimeSource;
import air.runtime.impl.failure.OperatorFailure;
import air.runtime.impl.shuffle.RecordBatch;
import air.runtime.operator.Operator;
import air.runtime.operator.Rescale;
import air.runtime.plan.OperatorInfo;
import air.runtime.plan.SideOutputItem;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A keyed process function behind a KEY exchange: per record, the user's function with the
 * record's key in scope, its per-key state ({@link ProcessState}) and its timers
 * ({@link ProcessTimers}, one set per clock).
 *
 * <ul>
 *   <li>Event-time timers at {@code t} fire when the input is complete past {@code t}
 *       ({@code onProgress(completeBelow)} with {@code completeBelow > t}), before that progress
 *       goes downstream; a timer registered for a time already complete fires after the batch
 *       that registered it.</li>
 *   <li>Processing-time timers fire when the job's {@link TimeSource} reaches them: checked
 *       whenever the tasklet runs (each batch, each progress step) and, while one is pending, on
 *       an idle wake-up at most {@link #MAX_IDLE_WAIT_NANOS} of machine time apart
 *       ({@link #idleWakeupNanos}). Each look fires only the timers due and registered before it
 *       began (a timer registered by one that fires waits for the next look), so timers that keep
 *       registering timers cannot hold the tasklet. Those still pending when the input ends do not fire.</li>
 *   <li>A timer registering its own (key, time) again from its {@code onTimer} changes nothing (it
 *       has fired for that time): the firing loop cannot keep polling the same timer.</li>
 *   <li>Outputs carry the event time of the record or event-time timer being handled, never
 *       below the progress this operator already let downstream ({@link #forwarded}), so the
 *       default {@link #outputProgress} holds; a processing-time timer's outputs carry the newest
 *       event time reached.</li>
 *   <li>A record or timer the function throws on goes to the stage's {@link BadRecordHandler}: the
 *       job fails (the default), or it is skipped or dead-lettered, with whatever the function did
 *       before it threw (state changed, outputs emitted) kept. A failure downstream of an output
 *       is never taken for the function's own.</li>
 * </ul>
 */
public final class KeyedProcessOp implements Operator, Counted, WindowStats, ProcessContext<Object, Object> {

    /** The longest a pending processing-time timer waits for the tasklet to look at the clock while no input comes. */
    static final long MAX_IDLE_WAIT_NANOS = 20_000_000L;

    private final OperatorInfo info;
    private final KeyHash keys;
    private final KeyedProcessFunction<Object, Object, Object> fn;
    private final BadRecordHandler badRecords;
    /** The tags some stage reads ({@code sideOutput(tag)}); outputs to any other tag are dropped. */
    private final Set<String> sideOutputs = new HashSet<>();
    private final boolean timestamped;
    private final TimeSource time;
    private final Inlet<Object> next;
    private final ProcessState state;
    private final ProcessTimers eventTimers = new ProcessTimers();
    private final ProcessTimers processingTimers = new ProcessTimers();
    /** The input's progress as last told ({@code onProgress}). */
    private long completeBelow = Long.MIN_VALUE;
    /** The progress downstream already has: no output is stamped below it. */
    private long forwarded = Long.MIN_VALUE;
    /** The newest event time handled (records and event-time timers). */
    private long reached = Long.MIN_VALUE;
    private long received;
    private long emitted;
    private long firedTimers;
    /** Side outputs to a tag no stage reads ({@code sideOutput(tag)}), dropped. */
    private long droppedSideOutputs;
    /** What the current call handles: its key, its event time and the time its outputs carry. */
    private Object key;
    private long handlingTime = NO_TIMESTAMP;
    private long outputTime = NO_TIMESTAMP;
    private boolean emittedInBatch;
    /** The clock and time of the timer firing now; {@code firingDomain} null when none fires. */
    private TimeDomain firingDomain;
    private long firingTime;

    public KeyedProcessOp(OperatorInfo info, KeyHash keys, KeyedProcessFunction<?, ?, ?> fn, List<StateDescriptor<?>> states,
                          List<OutputTag<?>> sideOutputs, boolean timestamped, TimeSource time, Inlet<?> next) {
        this(info, keys, fn, states, sideOutputs, timestamped, time, BadRecordHandler.fail(info), next);
    }

    @SuppressWarnings("unchecked")
    public KeyedProcessOp(OperatorInfo info, KeyHash keys, KeyedProcessFunction<?, ?, ?> fn, List<StateDescriptor<?>> states,
                          List<OutputTag<?>> sideOutputs, boolean timestamped, TimeSource time, BadRecordHandler badRecords, Inlet<?> next) {
        this.info = info;
        this.keys = keys;
        this.fn = (KeyedProcessFunction<Object, Object, Object>) fn;
        this.badRecords = badRecords;
        this.timestamped = timestamped;
        this.time = time;
        this.next = (Inlet<Object>) next;
        this.state = new ProcessState(info, states);
        for (OutputTag<?> t : sideOutputs) {
            this.sideOutputs.add(t.name());
        }
    }

    @Override
    public void onItem(int input, Object item) {
        RecordBatch b = (RecordBatch) item;
        fireProcessingTimers();
        received += b.size;
        for (int i = 0; i < b.size; i++) {
            Object record = b.records[i];
            long ts = b.timestamps[i];
            enter(keys.keyOf(record), ts, Math.max(ts, forwarded));
            if (ts > reached) {
                reached = ts;
            }
            try {
                fn.process(record, this);
            } catch (Downstream d) {
                throw d.failure;
            } catch (OperatorFailure f) {
                throw f;
            } catch (RuntimeException e) {
                badRecords.failed(ts, record, "threw on", e);
            }
        }
        fireEventTimers(completeBelow); // those registered for a time already complete
        endOfBatch();
    }

    @Override
    public void onProgress(long completeBelow) {
        this.completeBelow = completeBelow;
        fireProcessingTimers();
        fireEventTimers(completeBelow);
        state.expire(completeBelow);
        forwarded = completeBelow;
        endOfBatch();
    }

    @Override
    public void onEndOfInput() {
        // event-time timers all fired at onProgress(MAX); pending processing-time timers end with the job (as in Flink)
    }

    @Override
    public long idleWakeupNanos() {
        long due = processingTimers.earliest();
        if (due == Long.MAX_VALUE) {
            return Long.MAX_VALUE;
        }
        long waitMs = due - time.currentTimeMillis();
        return waitMs <= 0 ? 0 : waitMs >= MAX_IDLE_WAIT_NANOS / 1_000_000L ? MAX_IDLE_WAIT_NANOS : waitMs * 1_000_000L;
    }

    @Override
    public void onIdle() {
        fireProcessingTimers();
        endOfBatch();
    }

    private void fireEventTimers(long bound) {
        ProcessTimers.Timer t;
        while ((t = eventTimers.pollDue(bound, false, Long.MAX_VALUE)) != null) {
            if (t.time() > reached) {
                reached = t.time();
            }
            fire(t, TimeDomain.EVENT_TIME, t.time(), Math.max(t.time(), forwarded));
        }
    }

    private void fireProcessingTimers() {
        if (processingTimers.size() == 0) {
            return;
        }
        long now = time.currentTimeMillis();
        long registeredBefore = processingTimers.nextSeq(); // those the timers register now fire at the next look at the clock
        ProcessTimers.Timer t;
        while ((t = processingTimers.pollDue(now, true, registeredBefore)) != null) {
            long stamp = Math.max(reached, forwarded);
            fire(t, TimeDomain.PROCESSING_TIME, stamp, stamp);
        }
    }

    private void fire(ProcessTimers.Timer t, TimeDomain domain, long handling, long output) {
        firedTimers++;
        enter(t.key(), handling, output);
        firingDomain = domain;
        firingTime = t.time();
        try {
            fn.onTimer(t.time(), domain, this);
        } catch (Downstream d) {
            throw d.failure;
        } catch (OperatorFailure f) {
            throw f;
        } catch (RuntimeException e) {
            badRecords.failed(handling, domain + " " + t.time() + " for key " + OperatorFailure.preview(t.key()), "onTimer threw at", e);
        } finally {
            firingDomain = null;
        }
    }

    /** Whether {@code time} of {@code domain} is the current key's timer firing now: registering it again changes nothing. */
    private boolean firingNow(TimeDomain domain, long time) {
        return firingDomain == domain && firingTime == time;
    }

    private void enter(Object k, long handling, long output) {
        key = k;
        handlingTime = handling;
        outputTime = output;
        state.enter(k, handling);
    }

    private void endOfBatch() {
        if (emittedInBatch) {
            emittedInBatch = false;
            next.onEndOfBatch();
        }
    }

    // ---- the context the user's function sees ----

    @Override
    public Object key() {
        return key;
    }

    @Override
    public long timestamp() {
        return handlingTime;
    }

    @Override
    public long currentWatermark() {
        return completeBelow == Long.MIN_VALUE ? Long.MIN_VALUE : completeBelow - 1;
    }

    @Override
    public long currentProcessingTime() {
        return time.currentTimeMillis();
    }

    @Override
    public <S> S state(StateDescriptor<S> descriptor) {
        return state.view(descriptor);
    }

    @Override
    public void emit(Object output) {
        emitted++;
        emittedInBatch = true;
        try {
            next.accept(outputTime, output);
        } catch (RuntimeException e) {
            throw new Downstream(e);
        }
    }

    @Override
    public <X> void output(OutputTag<X> tag, X value) {
        if (tag == null) {
            throw new IllegalArgumentException(info.name() + ": ctx.output(tag, value) with a null tag; make one with OutputTag.of(name)"
                    + " and read it with sideOutput(tag) on this stage");
        }
        if (!sideOutputs.contains(tag.name())) {
            droppedSideOutputs++; // no stage reads this tag (sideOutput(tag) declares it): dropped, as documented
            return;
        }
        emitted++;
        emittedInBatch = true;
        try {
            next.accept(outputTime, new SideOutputItem(tag.name(), value));
        } catch (RuntimeException e) {
            throw new Downstream(e);
        }
    }

    @Override
    public void registerEventTimeTimer(long t) {
        if (!timestamped) {
            throw new IllegalStateException(info.name() + ": registerEventTimeTimer(" + t + ") on a stream without event timestamps;"
                    + " call withTimestamps(timestampFn, allowedDisorderMs) before keyBy, or use a processing-time timer");
        }
        if (!firingNow(TimeDomain.EVENT_TIME, t)) {
            eventTimers.register(key, t);
        }
    }

    @Override
    public void deleteEventTimeTimer(long t) {
        eventTimers.delete(key, t);
    }

    @Override
    public void registerProcessingTimeTimer(long t) {
        if (!firingNow(TimeDomain.PROCESSING_TIME, t)) {
            processingTimers.register(key, t);
        }
    }

    @Override
    public void deleteProcessingTimeTimer(long t) {
        processingTimers.delete(key, t);
    }

    // ---- snapshots, meters ----

    @Override
    public void snapshotTo(WireOut out, long checkpointId) {
        out.putLong(received).putLong(emitted).putLong(firedTimers).putLong(completeBelow).putLong(forwarded).putLong(reached);
        state.snapshotTo(out, keys);
        eventTimers.snapshotTo(out, keys, state);
        processingTimers.snapshotTo(out, keys, state);
    }

    @Override
    public void restoreFrom(WireIn in) {
        received = in.getLong();
        emitted = in.getLong();
        firedTimers = in.getLong();
        completeBelow = in.getLong();
        forwarded = in.getLong();
        reached = in.getLong();
        state.restoreFrom(in, keys);
        eventTimers.restoreFrom(in, keys);
        processingTimers.restoreFrom(in, keys);
    }

    /**
     * Onto another layout: every earlier instance's state is read, and this instance keeps the keys
     * it owns now (hashed as the exchange before it routes them), with their state, expiries and
     * timers; its progress resumes at the lowest of every earlier instance's, its counters sum
     * those of the earlier instances it takes ({@link Rescale#takes}).
     */
    @Override
    public void restoreRescaled(Rescale rescale) {
        ProcessState earlier = state.emptyCopy();
        ProcessTimers earlierEvent = new ProcessTimers();
        ProcessTimers earlierProcessing = new ProcessTimers();
        long lowestComplete = Long.MAX_VALUE;
        long lowestForwarded = Long.MAX_VALUE;
        long lowestReached = Long.MAX_VALUE;
        long in = 0;
        long out = 0;
        long fired = 0;
        for (int i = 0; i < rescale.instancesBefore(); i++) {
            WireIn w = rescale.newest(i); // whole in every checkpoint
            if (w == null) {
                continue;
            }
            long r = w.getLong();
            long e = w.getLong();
            long f = w.getLong();
            lowestComplete = Math.min(lowestComplete, w.getLong());
            lowestForwarded = Math.min(lowestForwarded, w.getLong());
            lowestReached = Math.min(lowestReached, w.getLong());
            earlier.restoreFrom(w, keys);
            earlierEvent.restoreFrom(w, keys);
            earlierProcessing.restoreFrom(w, keys);
            state.takeOwned(earlier, keys, rescale.instance(), rescale.instances());
            eventTimers.takeOwned(earlierEvent, keys, rescale.instance(), rescale.instances());
            processingTimers.takeOwned(earlierProcessing, keys, rescale.instance(), rescale.instances());
            if (rescale.takes(i)) {
                in += r;
                out += e;
                fired += f;
            }
        }
        if (lowestComplete != Long.MAX_VALUE) {
            received = in;
            emitted = out;
            firedTimers = fired;
            completeBelow = lowestComplete;
            forwarded = lowestForwarded;
            reached = lowestReached;
        }
    }

    @Override
    public long received() {
        return received;
    }

    /** Records emitted (main and side outputs). */
    @Override
    public long results() {
        return emitted;
    }

    @Override
    public OperatorInfo info() {
        return info;
    }

    /** Keys holding state now (for tests and diagnostics). */
    public int keysWithState() {
        return state.keyCount();
    }

    /** Side outputs dropped because no stage reads their tag (for tests and diagnostics; not kept in snapshots). */
    public long droppedSideOutputs() {
        return droppedSideOutputs;
    }

    /** Timers pending now, both clocks (for tests and diagnostics). */
    public int pendingTimers() {
        return eventTimers.size() + processingTimers.size();
    }

    /** Records and timers skipped or dead-lettered by this instance (for tests and diagnostics). */
    public long badRecords() {
        return badRecords.count();
    }

    /**
     * A failure downstream of an output, carried through the user's function unchanged: it is not
     * the function's own, so no bad-record policy applies to it.
     */
    private static final class Downstream extends RuntimeException {
        private final RuntimeException failure;

        Downstream(RuntimeException failure) {
            super(failure.getMessage(), failure, false, false);
            this.failure = failure;
        }
    }
}
