package air.runtime.sink;

import air.runtime.api.SinkFactory;
import air.runtime.api.SinkWriter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Collects every record into a list readable after the job finished. Each instance buffers
 * locally; buffers are merged once, at close, so workers never contend per record.
 */
public final class CollectSink<T> implements SinkFactory<T> {

    private final List<T> items = Collections.synchronizedList(new ArrayList<>());
    private volatile int open;
    private volatile boolean used;
    private volatile boolean aborted;

    @Override
    public synchronized SinkWriter<T> open(int instance, int parallelism) {
        used = true;
        open++;
        List<T> local = new ArrayList<>();
        return new SinkWriter<>() {
            @Override public void write(T item) { local.add(item); }
            @Override public void close() {
                items.addAll(local);
                synchronized (CollectSink.this) {
                    open--;
                }
            }
            @Override public void abort() {
                aborted = true;
                synchronized (CollectSink.this) {
                    open--;
                }
            }
        };
    }

    /** The collected records, in no particular order across workers. */
    public List<T> items() {
        if (!used) {
            throw new IllegalStateException("collect sink: the pipeline has not run yet");
        }
        if (aborted) {
            throw new IllegalStateException("collect sink: the job failed or was cancelled; its output is incomplete");
        }
        if (open > 0) {
            throw new IllegalStateException("collect sink: the job has not finished (" + open + " writer(s) open)");
        }
        return List.copyOf(items);
    }

    @Override
    public String describe() {
        return "collect";
    }
}
