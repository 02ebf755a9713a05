package air.runtime.sink;

import air.runtime.api.SinkFactory;
import air.runtime.api.SinkWriter;
import java.util.Objects;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Logs one INFO line per record through SLF4J, to the binding the application chose. */
public final class LogSink<T> implements SinkFactory<T> {

    private final String loggerName;
    private final Function<? super T, String> format;

    public LogSink(String loggerName, Function<? super T, String> format) {
        this.loggerName = Objects.requireNonNull(loggerName, "loggerName is null");
        this.format = Objects.requireNonNull(format, "format is null");
    }

    @Override
    public SinkWriter<T> open(int instance, int parallelism) {
        Logger log = LoggerFactory.getLogger(loggerName);
        return new SinkWriter<>() {
            @Override public void write(T item) {
                if (log.isInfoEnabled()) {
                    log.info("{}", format.apply(item));
                }
            }
            @Override public void close() { }
        };
    }

    @Override
    public String describe() {
        return "log(" + loggerName + ")";
    }
}
