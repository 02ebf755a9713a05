package air.runtime.api;

/**
 * A sink writer that commits in two phases, so that what a rollback takes back is never seen
 * outside: {@link #snapshot} is the pre-commit (everything written up to the checkpoint made
 * durable but not visible — a hidden file, an open Kafka transaction — and named in the state),
 * {@link #commit} makes it visible once the checkpoint is complete on every peer (or, under
 * replication, acknowledged by this peer's replicas), and {@link #restore} commits what the
 * restored state names as pending (its checkpoint is complete: it is being restored) and aborts
 * whatever was begun after it. Commits must be idempotent: a commit may be repeated after a
 * restore, and a crash may fall between a commit and the next checkpoint.
 *
 * <p>The engine calls {@link #commit} only in jobs with checkpoints or replicas, that is, after
 * {@link #claim}; a writer that was never claimed commits on its own (when it rolls a file, at
 * {@link #close}).
 */
public interface CommittingSinkWriter<T> extends CheckpointedSinkWriter<T> {

    /**
     * Checkpoint {@code checkpointId} is complete everywhere: makes visible everything pre-committed
     * by it and by the snapshots before it. Called on the engine's committer thread, concurrently
     * with {@link #write} and {@link #snapshot} on the writer's thread (the writer guards what they
     * share); a commit that throws is logged and tried again with the next completed checkpoint.
     */
    void commit(long checkpointId) throws Exception;
}
