package air.runtime.impl.exec;

import air.runtime.JobConfig;
import air.runtime.JobFailedException;
import air.runtime.impl.checkpoint.CheckpointCommits;
import air.runtime.impl.checkpoint.CheckpointCoordinator;
import java.io.IOException;

/**
 * The end of a job that ended well on this peer, with checkpoints or replicas: every tasklet's
 * last state goes into the {@linkplain CheckpointCoordinator#FINAL final checkpoint}, and the
 * two-phase-commit sinks commit their last output once it is complete on every peer (under
 * replication: held by this peer's replicas). Committed when an instance's own input ended,
 * that output would be seen twice after a failure elsewhere restored an earlier checkpoint and
 * replayed it; committed with the final checkpoint, a failure before it is complete aborts it and
 * one after it resumes from it, where everything has ended and the commit is repeated.
 */
public final class FinalCheckpoint {

    private FinalCheckpoint() {
    }

    /**
     * Writes the final checkpoint unless the job failed, was cancelled or stopped at a savepoint,
     * and waits for its commit ({@link JobConfig#finishTimeoutMs} at most, a WARN every
     * {@link JobConfig#stallReportMs}); a wait that runs out fails the job, naming the checkpoint.
     */
    public static void commit(CheckpointCoordinator coordinator, CheckpointCommits commits, JobConfig config, JobContext context,
                              NewestElsewhere newestElsewhere) throws InterruptedException {
        if (endedOtherwise(context) || !coordinator.writeFinal()) {
            return;
        }
        try {
            commits.awaitCommitted(CheckpointCoordinator.FINAL, config.finishTimeoutMs(), config.stallReportMs(),
                    () -> endedOtherwise(context), () -> standIn(coordinator, newestElsewhere));
        } catch (IllegalStateException e) {
            context.fail(new JobFailedException(e.getMessage(), e));
        }
    }

    /** The newest checkpoint another peer began (0: none, or it cannot be told). */
    @FunctionalInterface
    public interface NewestElsewhere {
        long newest() throws IOException;

        /** Under replication every peer's checkpoints complete on their own: nothing to stand in for. */
        NewestElsewhere NONE = () -> 0;
    }

    /**
     * The others may take more checkpoints while this peer waits: it writes its last states for the
     * newest ({@link CheckpointCoordinator#standIn}).
     */
    private static void standIn(CheckpointCoordinator coordinator, NewestElsewhere newestElsewhere) {
        try {
            long newest = newestElsewhere.newest();
            if (newest > 0) {
                coordinator.standIn(newest);
            }
        } catch (IOException e) {
            // the store cannot list its checkpoints now: asked again at the next poll
        }
    }

    private static boolean endedOtherwise(JobContext context) {
        return context.failure() != null || context.isCancelled() || context.stoppedAt() > 0;
    }
}
