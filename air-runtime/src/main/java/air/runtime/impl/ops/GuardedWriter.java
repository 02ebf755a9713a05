package air.runtime.impl.ops;

import air.runtime.api.CheckpointedSinkWriter;
import air.runtime.api.SinkWriter;
import org.slf4j.LoggerFactory;

/** A sink writer the engine can abort after a failure unless its owner closed it normally. */
public final class GuardedWriter<T> implements SinkWriter<T>, SinkTail {

    private final SinkWriter<T> writer;
    private volatile boolean closed;

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

    /** Closes the writer once; a second close is a bug upstream, logged with where it came from, and ignored. */
    @Override
    public void close() {
        if (closed) {
            LoggerFactory.getLogger(GuardedWriter.class).warn("sink writer {} closed twice; the second close is ignored",
                    writer.getClass().getName(), new IllegalStateException("second close"));
            return;
        }
        closed = true;
        writer.close();
    }

    @Override
    public void abortIfOpen() {
        if (!closed) {
            closed = true;
            writer.abort();
        }
    }
}
