package air.runtime.sink;

import air.runtime.api.SinkFactory;
import air.runtime.api.SinkWriter;
import java.util.Objects;
import java.util.function.Consumer;

/** Hands every record to a callback, one call at a time (the callback need not be thread-safe). */
public final class CallbackSink<T> implements SinkFactory<T> {

    private final Consumer<? super T> callback;

    public CallbackSink(Consumer<? super T> callback) {
        this.callback = Objects.requireNonNull(callback, "callback is null");
    }

    @Override
    public SinkWriter<T> open(int instance, int parallelism) {
        return new SinkWriter<>() {
            @Override public void write(T item) {
                synchronized (CallbackSink.this) {
                    callback.accept(item);
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
