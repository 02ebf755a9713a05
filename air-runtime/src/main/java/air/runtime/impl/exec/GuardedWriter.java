package air.runtime.impl.exec;

import air.runtime.api.SinkWriter;
import air.runtime.impl.ops.SinkTail;

/** A sink writer the engine can abort after a failure unless its owner closed it normally. */
final class GuardedWriter<T> implements SinkWriter<T>, SinkTail {

    private final SinkWriter<T> writer;
    private volatile boolean closed;

    GuardedWriter(SinkWriter<T> writer) {
        this.writer = writer;
    }

    @Override
    public void write(T item) {
        writer.write(item);
    }

    @Override
    public void close() {
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
