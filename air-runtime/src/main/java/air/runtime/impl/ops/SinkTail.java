package air.runtime.impl.ops;

/** What the engine needs of a sink operator besides its inlet (operators may be per-job class copies). */
public interface SinkTail {
    void abortIfOpen();
}
