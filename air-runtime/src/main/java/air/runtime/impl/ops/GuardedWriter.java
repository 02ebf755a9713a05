package air.runtime.impl.ops;

import air.runtime.api.CheckpointedSinkWriter;
import air.runtime.api.SinkWriter;
import org.slf4j.LoggerFactory;

/**
 * A sink writer the engine can abort after a failure unless its owner closed it normally. In an
 * exactly-once job a two-phase-commit writer's close (which would commit what it wrote since the
 * last checkpoint) is {@linkplain #deferCloseUntilTheJobEnds deferred} from its own end of input to
 * the end of the whole job: committed earlier, output that a restore replays (another instance or
 * peer failing after this one ended) would be seen twice. Its last output is pre-committed instead
 * by the snapshot of its last state, and committed with the first checkpoint that holds that state
 * (at the latest the final checkpoint), so the deferred close has nothing left to commit.
 */
public final class GuardedWriter<T> implements SinkWriter<T>, SinkTail {

    private final SinkWriter<T> writer;
    private volatile boolean closed;
    private volatile boolean deferClose;
    /** The owner closed a deferred writer: {@link #closeDeferred} closes it, {@link #abortIfOpen} aborts it. */
    private volatile boolean closeDue;

    public GuardedWriter(SinkWriter<T> writer) {
        this.writer = writer;
    }

    /** The wrapped writer, for a caller that writes per record with a call site of its own. */
    public SinkWriter<T> delegate() {
        return writer;
    }

    /** The checkpointed writer inside {@code writer} (guarded or not); fails if it is not one. */
    public static CheckpointedSinkWriter<?> checkpointed(SinkWriter<?> writer) {
        SinkWriter<?> inner = writer instanceof GuardedWriter<?> g ? g.writer : writer;
        if (inner instanceof CheckpointedSinkWriter<?> c) {
            return c;
        }
        throw new IllegalStateException(inner.getClass().getName() + " is not a CheckpointedSinkWriter");
    }

    @Override
    public void write(T item) {
        writer.write(item);
    }

    @Override
    public void onProgress(long completeBelow) {
        writer.onProgress(completeBelow);
    }

    /** Closes happen at {@link #closeDeferred}, once the whole job has ended well, not when this instance's input ends. */
    public void deferCloseUntilTheJobEnds() {
        deferClose = true;
    }

    /** Closes the writer once; a second close is a bug upstream, logged with where it came from, and ignored. */
    @Override
    public void close() {
        if (deferClose && !closed && !closeDue) {
            closeDue = true;
            return;
        }
        if (closed || closeDue) {
            LoggerFactory.getLogger(GuardedWriter.class).warn("sink writer {} closed twice; the second close is ignored",
                    writer.getClass().getName(), new IllegalStateException("second close"));
            return;
        }
        closed = true;
        writer.close();
    }

    @Override
    public void closeDeferred() {
        if (closeDue && !closed) {
            closed = true;
            writer.close();
        }
    }

    /** The owner aborts it (a source's side output, say): as {@link #abortIfOpen}. */
    @Override
    public void abort() {
        abortIfOpen();
    }

    @Override
    public void abortIfOpen() {
        if (!closed) {
            closed = true;
            writer.abort();
        }
    }
}
