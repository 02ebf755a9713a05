package air.runtime.sink;

import air.runtime.api.SinkFactory;
import air.runtime.api.SinkWriter;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Hands every record to a callback, one call at a time (the callback need not be thread-safe). The
 * calls are serialised by a {@link ReentrantLock}, not a monitor: a callback may block, and a
 * virtual thread blocked inside a monitor pins its carrier on JDK 21 to 23.
 */
public final class CallbackSink<T> implements SinkFactory<T> {

    private final Consumer<? super T> callback;
    private final ReentrantLock lock = new ReentrantLock();

    public CallbackSink(Consumer<? super T> callback) {
        this.callback = Objects.requireNonNull(callback, "callback is null");
    }

    @Override
    public SinkWriter<T> open(int instance, int parallelism) {
        return new SinkWriter<>() {
            @Override public void write(T item) {
                lock.lock();
                try {
                    callback.accept(item);
                } finally {
                    lock.unlock();
                }
            }
            @Override public void close() { }
        };
    }

    @Override
    public String describe() {
        return "callback";
    }
}
