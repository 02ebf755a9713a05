package air.runtime;

import java.util.List;
import java.util.Objects;

/**
 * What happened to a job on one peer, as the engine publishes it to the {@link JobListener}s of
 * {@link JobConfig#listener(JobListener)}: typed, with its numbers, so that programs that steer
 * peers (launchers, supervisors, dashboards) never read log lines. Every event names its job, the
 * peer it happened on (0 outside cluster mode) and the wall-clock moment ({@code atMs},
 * {@link System#currentTimeMillis()} on that peer).
 *
 * <p>Order, per job and peer: {@link Recovering} (when resuming from a checkpoint), then
 * {@link Started}; then, in any interleaving, {@link CheckpointWritten} (ascending ids),
 * {@link StateReplicated}, {@link Takeover}, {@link RunningAgain}; {@link PartDone} (cluster mode,
 * when this peer's part ended well); last exactly one of {@link Finished}, {@link Failed} or
 * {@link Cancelled}, published by {@link Job#join()}.
 */
public sealed interface JobEvent {

    /** The job's name ({@link JobConfig#name}). */
    String job();

    /** The peer it happened on (its rank; 0 outside cluster mode). */
    int peer();

    /** When, in wall-clock milliseconds on that peer. */
    long atMs();

    /** The job agreed its plan with every peer (cluster mode) and its tasklets start. */
    record Started(String job, int peer, long atMs, int tasklets, int workers) implements JobEvent {
        public Started {
            Objects.requireNonNull(job, "job");
        }
    }

    /**
     * This peer's part of checkpoint {@code checkpoint} is durable in the store (under replication:
     * acknowledged by its replicas).
     */
    record CheckpointWritten(String job, int peer, long atMs, long checkpoint, int parts, long bytes) implements JobEvent {
        public CheckpointWritten {
            Objects.requireNonNull(job, "job");
        }
    }

    /**
     * Replication: this peer's snapshot {@code checkpoint}, covering {@code blocks} (the peers'
     * shares it runs, its own and those taken over), is held in the memory of {@code replicas}.
     * Published for every snapshot replicated.
     */
    record StateReplicated(String job, int peer, long atMs, List<Integer> blocks, long checkpoint, List<Integer> replicas)
            implements JobEvent {
        public StateReplicated {
            Objects.requireNonNull(job, "job");
            blocks = List.copyOf(blocks);
            replicas = List.copyOf(replicas);
        }
    }

    /**
     * Replication: this peer (the host) took the {@code blocks} of lost peer {@code dead} over
     * from its copy at {@code checkpoint}; their tasklets run here now.
     */
    record Takeover(String job, int peer, long atMs, int dead, List<Integer> blocks, long checkpoint) implements JobEvent {
        public Takeover {
            Objects.requireNonNull(job, "job");
            blocks = List.copyOf(blocks);
        }

        /** The peer that took the blocks over: {@link #peer()}. */
        public int host() {
            return peer;
        }
    }

    /** The job resumes on this peer from checkpoint {@code checkpoint} (its tasklets restore their state). */
    record Recovering(String job, int peer, long atMs, long checkpoint) implements JobEvent {
        public Recovering {
            Objects.requireNonNull(job, "job");
        }
    }

    /**
     * Every tasklet of peer {@code share}'s share runs again on this peer at checkpoint
     * {@code checkpoint}: after a restore {@code share} is this peer, after a takeover the dead one.
     */
    record RunningAgain(String job, int peer, long atMs, int share, long checkpoint, long afterMs) implements JobEvent {
        public RunningAgain {
            Objects.requireNonNull(job, "job");
        }
    }

    /** Cluster mode: this peer's part ended well; it now waits for the other peers. */
    record PartDone(String job, int peer, long atMs) implements JobEvent {
        public PartDone {
            Objects.requireNonNull(job, "job");
        }
    }

    /** The job finished on this peer. */
    record Finished(String job, int peer, long atMs, long elapsedMs) implements JobEvent {
        public Finished {
            Objects.requireNonNull(job, "job");
        }
    }

    /** The job failed on this peer; {@code reason} is the failure's message. */
    record Failed(String job, int peer, long atMs, String reason) implements JobEvent {
        public Failed {
            Objects.requireNonNull(job, "job");
            reason = reason == null ? "" : reason;
        }
    }

    /** The job was cancelled on this peer. */
    record Cancelled(String job, int peer, long atMs) implements JobEvent {
        public Cancelled {
            Objects.requireNonNull(job, "job");
        }
    }

    /** The job stopped on this peer at savepoint {@code savepoint} ({@link Job#stopWithSavepoint}): a later run resumes it. */
    record Stopped(String job, int peer, long atMs, long savepoint) implements JobEvent {
        public Stopped {
            Objects.requireNonNull(job, "job");
        }
    }
}
