package air.runtime.impl.exec;

import air.runtime.api.SourceReader;
import air.runtime.impl.checkpoint.PartSections;
import air.runtime.impl.ops.Inlet;
import air.runtime.operator.Rescale;
import air.wire.WireIn;
import air.wire.WireOut;
import java.util.concurrent.locks.LockSupport;

/**
 * Reads a source in batches and pushes each record through the fused chain. With checkpoints,
 * between two batches once per interval it captures its position and its chain's state and sends
 * a barrier downstream behind everything read so far; restored, it seeks back to the position.
 */
final class SourceTasklet<T> extends Tasklet {

    private final SourceReader<T> reader;
    private final Inlet<T> head;
    private final int batchSize;
    private final int instance;
    private final TaskletState state;
    private final Checkpointing checkpoints;
    private long nextCheckpoint;
    /** How the reader's position goes into checkpoints: a number, or the reader's opaque state. */
    private final ReaderState positions;
    private long nextBarrierNanos;

    SourceTasklet(JobContext job, String name, SourceReader<T> reader, Inlet<T> head, int batchSize, int instance,
                  TaskletState state, Checkpointing checkpoints) {
        super(job, name);
        this.reader = reader;
        this.head = head;
        this.batchSize = batchSize;
        this.instance = instance;
        this.state = state;
        this.checkpoints = checkpoints;
        this.positions = ReaderState.of(reader);
    }

    /** Batches between yields: virtual threads are not preempted, so a busy source yields now and then. */
    private static final int YIELD_EVERY = 8;
    /**
     * Batches between fair yields. {@code Thread.yield} keeps a virtual thread on its carrier's
     * local queue while that holds work (finals woken by sources), so threads woken from platform
     * threads (the remote shuffle receivers) can starve when busy sources fill every carrier:
     * measured 8 s with two sources on two carriers after a takeover. A short timed park sends this
     * source through the scheduler's shared queue instead, behind them.
     */
    private static final int FAIR_YIELD_EVERY = 64;
    /** Empty reads in a row before the source backs off, and the longest pause between polls. */
    private static final int SPIN_READS = 16;
    private static final long MAX_PAUSE_NANOS = 1_000_000;

    /** Where the reader was when reading failed, taken before it was aborted. */
    private volatile String failedAt;

    @Override
    protected void runBody() {
        boolean ended = false;
        try {
            ended = readAll();
        } catch (RuntimeException | Error e) {
            failedAt = position(); // before abort() releases what the reader knows of the record (its file:line)
            throw e;
        } finally {
            if (ended) {
                reader.close();
            } else {
                reader.abort();
            }
        }
    }

    /** Reads until the reader is exhausted; true when it was (or had already finished at the restored checkpoint). */
    private boolean readAll() {
        if (checkpoints.enabled() && restore()) {
            return true;
        }
        long batches = 0;
        int emptyReads = 0;
        boolean held = false;
        while (true) {
            job.checkCancelled();
            if (checkpoints.enabled() && (held || checkpoints.stopRequested())) {
                held = holdForSavepoint(held);
                if (held) {
                    continue;
                }
            }
            int n = reader.read(batchSize, head);
            if (n == SourceReader.EXHAUSTED) {
                break;
            }
            head.onEndOfBatch();
            if (checkpoints.enabled() && (System.nanoTime() >= nextBarrierNanos || checkpoints.begun(nextCheckpoint))) {
                checkpoint();
            }
            if (n == 0) {
                // nothing ready: poll again soon, but do not burn a carrier on a quiet source
                if (++emptyReads > SPIN_READS) {
                    LockSupport.parkNanos(Math.min(MAX_PAUSE_NANOS, 1_000L << Math.min(20, emptyReads - SPIN_READS)));
                } else {
                    Thread.yield();
                }
                continue;
            }
            emptyReads = 0;
            if (++batches % YIELD_EVERY == 0) {
                // a source that never runs dry would otherwise keep its carrier, and the final
                // stages it feeds would not run until their inboxes filled up or input ended
                if (batches % FAIR_YIELD_EVERY == 0) {
                    LockSupport.parkNanos(1);
                } else {
                    Thread.yield();
                }
            }
        }
        head.onComplete();
        if (checkpoints.enabled()) {
            checkpoints.finished(state.part(), lastState());
        }
        return true;
    }

    /** Back to the restored checkpoint; true when this instance had already finished there. */
    private boolean restore() {
        nextCheckpoint = checkpoints.restoredId() + 1;
        nextBarrierNanos = System.nanoTime() + checkpoints.intervalNanos();
        if (!checkpoints.resuming()) {
            return false;
        }
        if (checkpoints.rescaling()) {
            Rescale rescale = state.headRescaled(checkpoints);
            if (rescale != null) { // else the source reads from its start (new, or changed, in this pipeline)
                try {
                    positions.restoreRescaled(rescale, name());
                } catch (UnsupportedOperationException e) {
                    throw TaskletState.cannotMove("source " + name(), null, checkpoints.restoredId(), e);
                }
            }
            return state.restoreChain(false, checkpoints, this::lastState);
        }
        WireIn in = state.headState(checkpoints);
        boolean finished = false;
        if (in != null) { // else the source reads from its start (new, or changed, in this pipeline)
            finished = in.getByte() == 1;
            try {
                positions.restore(in);
            } catch (UnsupportedOperationException e) {
                throw TaskletState.cannotMove("source " + name(), null, checkpoints.restoredId(), e);
            }
        }
        return state.restoreChain(finished, checkpoints, this::lastState);
    }

    /**
     * A stop with a savepoint was asked for: the first call takes the next checkpoint at once (the
     * savepoint, unless another source of the job held at a lower one) and holds; later calls wait
     * until the job stops there. Returns whether the source still holds: false when the savepoint
     * was given up (its write failed) and reading goes on.
     */
    private boolean holdForSavepoint(boolean held) {
        if (!held) {
            checkpoints.heldAt(nextCheckpoint); // before the offer: the write that may follow finds it held
            checkpointNow();
            return true;
        }
        if (!checkpoints.stopRequested()) {
            return false;
        }
        LockSupport.parkNanos(MAX_PAUSE_NANOS);
        return true;
    }

    private void checkpoint() {
        if (!checkpoints.begun(nextCheckpoint) && checkpoints.backlogged()) {
            // the disk is behind: take this checkpoint a little later rather than queue another
            nextBarrierNanos = System.nanoTime() + checkpoints.intervalNanos() / 4;
            return;
        }
        checkpointNow();
    }

    private void checkpointNow() {
        long id = nextCheckpoint++;
        nextBarrierNanos = Math.max(nextBarrierNanos + checkpoints.intervalNanos(), System.nanoTime());
        checkpoints.offer(id, state.part(), capture(false, id));
        state.emitBarrier(id);
    }

    /** The part that stands for this ended instance, captured under the first checkpoint that will hold it. */
    private WireOut lastState() {
        return capture(true, checkpoints.firstHolding(state.part())).done();
    }

    /** The part: whether this instance finished and its reader's state as the head's state, then the chain's operators. */
    private PartSections capture(boolean finished, long id) {
        return state.capture(head -> {
            positions.write(head.putByte(finished ? 1 : 0), id);
            return false;
        }, id, finished || checkpoints.full(id));
    }

    @Override
    protected String position() {
        String at = failedAt;
        if (at != null) {
            return at;
        }
        return "source instance " + instance + ", " + reader.describePosition();
    }
}
