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

    @Override
    protected void runBody() {
        while (true) {
            job.checkCancelled();
            int n = reader.read(batchSize, head);
            if (n == SourceReader.EXHAUSTED) {
                break;
            }
            head.onEndOfBatch();
        }
        head.onComplete();
    }

    @Override
    protected String position() {
        return "source instance " + instance + ", record at position " + reader.position();
    }
}
