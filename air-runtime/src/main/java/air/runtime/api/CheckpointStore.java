package air.runtime.api;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where checkpoints live: the runtime's fault-tolerance SPI (the file store of
 * {@code air-replication} is one). A checkpoint is identified by a number that grows over time;
 * every peer writes its own part, as named byte arrays (one per tasklet). A checkpoint counts only
 * once every peer's part is there and intact.
 */
public interface CheckpointStore {

    /** What a restart resumes from: the checkpoint's number and this peer's parts. */
    record Restored(long id, Map<String, byte[]> parts) { }

    /**
     * Writes this peer's part of checkpoint {@code id} so that it is either wholly there or not at
     * all, then drops what is older than the retention allows.
     *
     * @param job   identifies the pipeline and its layout; parts of another job are never used
     */
    void write(String job, long id, int peer, int peers, Map<String, byte[]> parts) throws IOException;

    /**
     * The newest checkpoint of {@code job} that every one of {@code peers} completed and whose
     * parts are intact, with {@code peer}'s parts; empty when there is none (a fresh start).
     */
    Optional<Restored> newestComplete(String job, int peer, int peers) throws IOException;

    /**
     * Drops {@code peer}'s parts of checkpoints newer than {@code id}: left by a run that failed
     * before they completed, they must not mix with the parts of the run that resumes from {@code id}.
     */
    void discardNewerThan(String job, long id, int peer) throws IOException;

    /**
     * The jobs this store holds checkpoints of (the {@code job} keys given to {@link #write}), so
     * that a run can say why it does not resume from them; empty when the store cannot tell.
     */
    default List<String> jobs() throws IOException {
        return List.of();
    }

    /** Removes every checkpoint of {@code job} (a run that starts afresh on purpose); a store that cannot, refuses. */
    default void discard(String job) throws IOException {
        throw new IOException(describe() + " cannot discard the checkpoints of " + job + ": remove them by hand");
    }

    /** For logs and the plan: where this store keeps its data. */
    String describe();
}
