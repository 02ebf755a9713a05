package air.runtime;

/**
 * A job with checkpoints refused to start: its store holds checkpoints of the same job name that
 * this run cannot resume from (another pipeline, none of whose operators' state fits this one; a
 * named operator whose state changed shape; another layout or checkpoint format; a file format
 * this AIR does not read), or another live run of the job holds the directory, or a fresh start
 * would replace output an earlier run wrote ({@code Sinks.files}). Nothing ran and nothing was
 * deleted; the message names what and the ways on — run the pipeline that wrote them, rename a
 * changed stage, wait for the other run, {@link JobConfig#startAfresh(boolean)}, or another
 * directory. A launcher treats it as a usage error (exit 2), not a failure to retry.
 */
public final class CheckpointMismatchException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public CheckpointMismatchException(String message) {
        super(message);
    }
}
