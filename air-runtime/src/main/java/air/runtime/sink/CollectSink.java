package air.runtime.sink;

import air.runtime.api.CheckpointedSinkWriter;
import air.runtime.api.SinkFactory;
import air.runtime.api.SinkWriter;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

/**
 * Collects every record into a list readable after the job finished. Each instance buffers
 * locally, so workers never contend per record; the buffers are read once the job has ended.
 *
 * <p>Exactly once under checkpoints within this JVM: an instance's buffer outlives a failed run,
 * a checkpoint records its length, and a run that resumes from the checkpoint cuts it back to
 * that length (a run that starts afresh empties it). Records collected in another process are
 * not here to restore, and restoring says so.
 */
public final class CollectSink<T> implements SinkFactory<T> {

    private final TreeMap<Integer, List<T>> buffers = new TreeMap<>();
    private final Set<Integer> open = new HashSet<>();
    private volatile boolean used;
    private volatile boolean aborted;

    @Override
    public synchronized SinkWriter<T> open(int instance, int parallelism) {
        used = true;
        aborted = false;
        open.add(instance);
        List<T> local = buffers.computeIfAbsent(instance, i -> new ArrayList<>());
        return new CheckpointedSinkWriter<>() {
            /** Whether the buffer left by an earlier run has been restored or emptied. */
            private boolean settled;

            private List<T> buffer() {
                if (!settled) {
                    local.clear();
                    settled = true;
                }
                return local;
            }

            @Override public void write(T item) {
                buffer().add(item);
            }

            @Override public void close() {
                buffer();
                synchronized (CollectSink.this) {
                    open.remove(instance);
                }
            }

            @Override public void abort() {
                synchronized (CollectSink.this) {
                    aborted = true;
                    open.remove(instance);
                }
            }

            @Override public byte[] snapshot(long checkpointId) {
                return ByteBuffer.allocate(4).putInt(buffer().size()).array();
            }

            @Override public void restore(byte[] state) {
                int size = ByteBuffer.wrap(state).getInt();
                if (size > local.size()) {
                    throw new IllegalStateException("collect sink instance " + instance + ": the checkpoint holds " + size
                            + " records collected before it, this JVM has " + local.size()
                            + " (they were collected in another process); use a durable sink across restarts");
                }
                local.subList(size, local.size()).clear();
                settled = true;
            }
        };
    }

    /** The collected records, in no particular order across workers. */
    public synchronized List<T> items() {
        if (!used) {
            throw new IllegalStateException("collect sink: the pipeline has not run yet");
        }
        if (aborted) {
            throw new IllegalStateException("collect sink: the job failed or was cancelled; its output is incomplete");
        }
        if (!open.isEmpty()) {
            throw new IllegalStateException("collect sink: the job has not finished (" + open.size() + " writer(s) open)");
        }
        List<T> all = new ArrayList<>();
        for (List<T> b : buffers.values()) {
            all.addAll(b);
        }
        return List.copyOf(all);
    }

    @Override
    public String describe() {
        return "collect";
    }
}
