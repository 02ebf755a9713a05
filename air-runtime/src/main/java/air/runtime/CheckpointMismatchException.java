package air.runtime;

/**
 * A job with checkpoints refused to start: its store holds checkpoints of the same job name that
 * this run cannot resume from (a changed pipeline or layout, another checkpoint format). Nothing
 * ran and nothing was deleted; the message names them and the ways on — run the pipeline that wrote
 * them, {@link JobConfig#startAfresh(boolean)}, or another directory. A launcher treats it as a
 * usage error (exit 2), not a failure to retry.
 */
public final class CheckpointMismatchException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public CheckpointMismatchException(String message) {
        super(message);
    }
}
