package air.runtime.api;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where checkpoints live: the runtime's fault-tolerance SPI (the file store of
 * {@code air-checkpoint-files} is one). A checkpoint is identified by a number that grows over time;
 * every peer writes its own part, as named byte arrays (one per tasklet). A checkpoint counts only
 * once every peer's part is there and intact.
 */
public interface CheckpointStore {

    /**
     * What a restart resumes from: the checkpoint's number and this peer's parts of the chain that
     * ends with it, oldest first — one whole checkpoint, then those holding changes since the one
     * before ({@link #write} with a base older than the checkpoint); just the checkpoint when it
     * is whole.
     */
    record Restored(long id, List<Map<String, byte[]>> chain) {

        public Restored {
            if (chain.isEmpty()) {
                throw new IllegalArgumentException("checkpoint " + id + ": a chain of no checkpoints");
            }
            chain = List.copyOf(chain);
        }

        /** A whole checkpoint: its parts alone. */
        public Restored(long id, Map<String, byte[]> parts) {
            this(id, List.of(parts));
        }

        /** This peer's parts of checkpoint {@link #id} itself. */
        public Map<String, byte[]> parts() {
            return chain.get(chain.size() - 1);
        }
    }

    /**
     * A run's hold on {@code peer}'s share of a job's checkpoints, from its start to its end: while
     * one run holds it, another run of the same job and peer is refused. Released by {@link #close}
     * and, for a store on disk, by the operating system when the process dies.
     */
    interface Claim extends AutoCloseable {

        /** What a store that cannot claim returns: it refuses nothing and cannot tell earlier runs. */
        Claim NONE = new Claim() {
            @Override
            public boolean earlierRun() {
                return true;
            }

            @Override
            public void started() {
            }

            @Override
            public void close() {
            }
        };

        /**
         * Whether a run of this job started on this peer's share before this one (a restart, or a
         * run after one that ended), as recorded by {@link #started}; {@code false} for the first
         * run ever, which a fresh start relies on. A run refused before it started does not count.
         */
        boolean earlierRun();

        /** This run passed its start checks and will run: records it for {@link #earlierRun} of later runs. */
        void started() throws IOException;

        @Override
        void close();
    }

    /**
     * Claims {@code peer}'s share of {@code job}'s checkpoints for this run, before it reads or
     * writes any. A store that can detect another live run of the same job and peer refuses with a
     * {@link air.runtime.CheckpointMismatchException} naming it (its run, process, host, start).
     * The default claims nothing.
     */
    default Claim claim(String job, int peer, int peers) throws IOException {
        return Claim.NONE;
    }

    /**
     * Writes this peer's part of checkpoint {@code id} so that it is either wholly there or not at
     * all, then drops what is older than the retention allows. A write that fails (a full disk)
     * leaves nothing behind and throws; the caller goes on and tries again at the next checkpoint.
     *
     * @param job   identifies the pipeline and its layout; parts of another job are never used
     */
    void write(String job, long id, int peer, int peers, Map<String, byte[]> parts) throws IOException;

    /**
     * Whether this store keeps chains of checkpoints ({@link #write(String, long, long, int, int, Map)}
     * with a base older than the checkpoint), so that a job may write only what changed since
     * the checkpoint before. A store that does not gets whole checkpoints only.
     */
    default boolean keepsChains() {
        return false;
    }

    /**
     * Whether this store would rather have the next checkpoint whole (asked when a checkpoint's
     * kind is decided; chains only): the chain it keeps has grown as large as it accepts, say, so
     * that a checkpoint of changes would be refused. False by default.
     */
    default boolean prefersWhole() {
        return false;
    }

    /**
     * Writes this peer's part of checkpoint {@code id}, which holds only changes since checkpoint
     * {@code id - 1} unless {@code base == id}: a restore needs every checkpoint from {@code base}
     * (a whole one) to {@code id}, so the store keeps them as long as it keeps this one, and takes
     * {@code id} only when it has them all ({@link Restored#chain}). Only called with
     * {@code base < id} on a store that {@link #keepsChains}.
     */
    default void write(String job, long id, long base, int peer, int peers, Map<String, byte[]> parts) throws IOException {
        if (base != id) {
            throw new IOException(describe() + " keeps whole checkpoints only; checkpoint " + id + " holds changes since " + base);
        }
        write(job, id, peer, peers, parts);
    }

    /**
     * The newest checkpoint of {@code job} that every one of {@code peers} completed and whose
     * parts are intact (with those of every checkpoint of its chain), with {@code peer}'s parts;
     * empty when there is none (a fresh start). A part
     * that cannot be read is skipped for the previous checkpoint, saying why; a part in a format
     * this store does not know is refused ({@link air.runtime.CheckpointMismatchException}), never
     * skipped, so that a newer run's checkpoints never turn into a silent fresh start.
     */
    Optional<Restored> newestComplete(String job, int peer, int peers) throws IOException;

    /**
     * Whether every one of {@code peers} has written its part of checkpoint {@code id} of
     * {@code job}: a stop with a savepoint ends the job at {@code id} only then, when no peer still
     * owes its part. The default reads {@link #newestComplete}; a store that can tell more cheaply
     * (the file store: every peer's file is there) should.
     */
    default boolean writtenByAll(String job, long id, int peers) throws IOException {
        return newestComplete(job, 0, peers).map(r -> r.id() >= id).orElse(false);
    }

    /**
     * The newest checkpoint of {@code job} that every one of {@code peers} has written, without
     * reading it (0 when none): what a run on another layout compares with its own newest before
     * it reads anything. {@link #newestComplete} still decides what is restored. The default reads
     * it.
     */
    default long newestWrittenByAll(String job, int peers) throws IOException {
        return newestComplete(job, 0, peers).map(Restored::id).orElse(0L);
    }

    /**
     * The newest checkpoint of {@code job} that any peer has written or begun to write, below the
     * final one (0 when none, or when the store cannot tell: the default). A peer whose every
     * tasklet has ended writes their last states under such ids while it waits for the others, so
     * that the others' checkpoints still complete and their sinks still commit.
     */
    default long newestBegun(String job) throws IOException {
        return 0;
    }

    /**
     * Who holds {@code job}'s checkpoints now, when a live run does (its run, process, host), else
     * null: a run that would resume another layout's checkpoints refuses while that layout still
     * runs. The default cannot tell and says null.
     */
    default String liveRun(String job) throws IOException {
        return null;
    }

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
