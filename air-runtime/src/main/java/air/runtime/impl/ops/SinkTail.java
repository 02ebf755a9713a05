package air.runtime.impl.ops;

/** What the engine needs of a sink operator besides its inlet (operators may be per-job class copies). */
public interface SinkTail {
    void abortIfOpen();

    /**
     * The whole job has ended well (every tasklet of every peer): closes a writer whose close was
     * {@linkplain GuardedWriter#deferCloseUntilTheJobEnds deferred} until now; nothing for others.
     */
    default void closeDeferred() {
    }
}
