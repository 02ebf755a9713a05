package air.runtime.impl.exec;

import air.runtime.api.SourceReader;
import air.runtime.impl.ops.Inlet;

/** Reads a source in batches and pushes each record through the fused chain. */
final class SourceTasklet<T> extends Tasklet {

    private final SourceReader<T> reader;
    private final Inlet<T> head;
    private final int batchSize;
    private final int instance;

    SourceTasklet(JobContext job, String name, SourceReader<T> reader, Inlet<T> head, int batchSize, int instance) {
        super(job, name);
        this.reader = reader;
        this.head = head;
        this.batchSize = batchSize;
        this.instance = instance;
    }

    /** Batches between yields: virtual threads are not preempted, so a busy source yields now and then. */
    private static final int YIELD_EVERY = 8;

    /** Empty reads in a row before the source backs off, and the longest pause between polls. */
    private static final int SPIN_READS = 16;
    private static final long MAX_PAUSE_NANOS = 1_000_000;

    @Override
    protected void runBody() {
        long batches = 0;
        int emptyReads = 0;
        while (true) {
            job.checkCancelled();
            int n = reader.read(batchSize, head);
            if (n == SourceReader.EXHAUSTED) {
                break;
            }
            head.onEndOfBatch();
            if (n == 0) {
                // nothing ready: poll again soon, but do not burn a carrier on a quiet source
                if (++emptyReads > SPIN_READS) {
                    java.util.concurrent.locks.LockSupport.parkNanos(Math.min(MAX_PAUSE_NANOS, 1_000L << Math.min(20, emptyReads - SPIN_READS)));
                } else {
                    Thread.yield();
                }
                continue;
            }
            emptyReads = 0;
            if (++batches % YIELD_EVERY == 0) {
                // a source that never runs dry would otherwise keep its carrier, and the final
                // stages it feeds would not run until their inboxes filled up or input ended
                Thread.yield();
            }
        }
        head.onComplete();
    }

    @Override
    protected String position() {
        return "source instance " + instance + ", record at position " + reader.position();
    }
}
