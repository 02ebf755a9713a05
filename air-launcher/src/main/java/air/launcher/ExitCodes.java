package air.launcher;

/**
 * The exit statuses every AIR command shares — the {@code ./air} launcher, the samples, the local
 * cluster and the supervisors — so a script can tell a wrong result from a usage error or a failed
 * job, whichever of them ran.
 */
public final class ExitCodes {

    /** The job ran and its output checked out. */
    public static final int OK = 0;
    /** The job ran but its output check failed (checksum, lost or duplicated rows, fewer kills than asked). */
    public static final int CHECK_FAILED = 1;
    /** The command line was wrong; nothing ran. */
    public static final int USAGE = 2;
    /** The job failed, or a peer died or hung without the job surviving it. */
    public static final int JOB_FAILED = 3;
    /** The environment lacks something (a JDK, Maven, MPJ Express): the message says what to install. */
    public static final int ENVIRONMENT = 4;
    /**
     * This peer stopped because the others declared it lost (it was paused, partitioned or too slow
     * and its share runs elsewhere) or because it could no longer reach a quorum of them: the run
     * may still succeed without it, which the launcher decides.
     */
    public static final int FENCED = 5;
    /**
     * The job stopped at a savepoint, as asked ({@code --savepoint DIR --stop-after T}): no output
     * yet; a run with the same checkpoint directory, on any layout, resumes it.
     */
    public static final int STOPPED = 6;

    private ExitCodes() {
    }

    /**
     * What a peer's exit status means for the whole run: its own status when it is one of these,
     * else {@link #JOB_FAILED} — a peer killed by a signal (128 + n), one that did not end in
     * time ({@code -1}), or any other status.
     */
    public static int ofPeer(int status) {
        return status >= OK && status <= STOPPED ? status : JOB_FAILED;
    }
}
