package air.runtime;

/**
 * This peer stopped a cluster job because the others declared it lost (it was paused, partitioned
 * or too slow and its share now runs on another peer), or because it could no longer reach a
 * quorum of the peers. Nothing it holds may be written any more; the run goes on without it. A
 * program started by a launcher exits with its own status for this ({@code ExitCodes.FENCED}), so
 * the launcher can tell a fenced peer from a failed job.
 */
public class PeerFencedException extends JobFailedException {

    public PeerFencedException(String message) {
        super(message, null);
    }
}
