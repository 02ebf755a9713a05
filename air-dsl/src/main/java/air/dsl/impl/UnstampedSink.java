package air.dsl.impl;

import air.runtime.api.CheckpointedSinkWriter;
import air.runtime.api.OwnerToken;
import air.runtime.api.SinkFactory;
import air.runtime.api.SinkWriter;
import air.runtime.api.Timestamped;
import java.io.IOException;
import java.util.List;

/**
 * The late-record sink of a session or count window: its partial half sees records stamped with
 * their time ({@link Timestamped}), and the user's sink gets each late record as it was. A
 * checkpointed writer stays checkpointed through it, so exactly-once jobs keep their late records.
 */
final class UnstampedSink implements SinkFactory<Object> {

    private final SinkFactory<Object> sink;

    @SuppressWarnings("unchecked")
    UnstampedSink(SinkFactory<?> sink) {
        this.sink = (SinkFactory<Object>) sink;
    }

    @Override
    public SinkWriter<Object> open(int instance, int parallelism) {
        SinkWriter<Object> writer = sink.open(instance, parallelism);
        return writer instanceof CheckpointedSinkWriter<Object> c ? new Checkpointed(c) : new Plain(writer);
    }

    @Override
    public String describe() {
        return sink.describe();
    }

    @Override
    public List<String> earlierOutput() throws IOException {
        return sink.earlierOutput();
    }

    @Override
    public void discardEarlierOutput() throws IOException {
        sink.discardEarlierOutput();
    }

    private static Object unstamped(Object item) {
        return ((Timestamped<?>) item).value();
    }

    /** A plain writer's records, unstamped. */
    private static class Plain implements SinkWriter<Object> {
        private final SinkWriter<Object> writer;

        Plain(SinkWriter<Object> writer) {
            this.writer = writer;
        }

        @Override
        public void write(Object item) {
            writer.write(unstamped(item));
        }

        @Override
        public void onProgress(long completeBelow) {
            writer.onProgress(completeBelow);
        }

        @Override
        public void close() {
            writer.close();
        }

        @Override
        public void abort() {
            writer.abort();
        }
    }

    /** A checkpointed writer's records, unstamped; its snapshots are its own. */
    private static final class Checkpointed extends Plain implements CheckpointedSinkWriter<Object> {
        private final CheckpointedSinkWriter<Object> writer;

        Checkpointed(CheckpointedSinkWriter<Object> writer) {
            super(writer);
            this.writer = writer;
        }

        @Override
        public byte[] snapshot(long checkpointId) {
            return writer.snapshot(checkpointId);
        }

        @Override
        public void restore(byte[] state) {
            writer.restore(state);
        }

        @Override
        public byte[] snapshotChanges(long checkpointId) {
            return writer.snapshotChanges(checkpointId);
        }

        @Override
        public void restoreChanges(byte[] changes) {
            writer.restoreChanges(changes);
        }

        @Override
        public void claim(OwnerToken owner) {
            writer.claim(owner);
        }
    }
}
