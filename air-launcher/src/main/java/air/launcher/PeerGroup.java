package air.launcher;

/** What a supervisor needs of a running set of peer processes (a {@link LocalCluster}, or a test's stand-in). */
public interface PeerGroup extends AutoCloseable {

    int peers();

    /** Whether peer {@code rank} is still running. */
    boolean isAlive(int rank);

    /** Kills one peer as {@code kill -9} would. */
    void kill(int rank);

    /** Stops one peer as {@code kill -STOP} would (a long GC pause, a VM stall), until {@link #resume}. */
    default void pause(int rank) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot pause a peer");
    }

    /** Lets a paused peer run again, as {@code kill -CONT} would. */
    default void resume(int rank) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot resume a peer");
    }

    /**
     * Cuts peer {@code rank}'s host off the network (a partition: the peer runs on but reaches
     * nobody, and nobody reaches it), until {@link #heal}.
     */
    default void cut(int rank) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot cut a peer off the network");
    }

    /** Connects a cut peer's host again; harmless for one that is not cut (or has exited). */
    default void heal(int rank) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot heal a peer's link");
    }

    /** Waits up to {@code timeoutMs} for any peer to exit; true if one did. */
    boolean anyExitWithin(long timeoutMs) throws InterruptedException;

    /**
     * Waits until all peers exited or {@code timeoutMs} passed (after a failure the others get the
     * group's grace period); each peer's exit code, -1 for one killed here. Every event the peers
     * sent has been handed on when it returns.
     */
    int[] await(long timeoutMs) throws InterruptedException;

    /** Ends every peer still running. */
    @Override
    void close();
}
