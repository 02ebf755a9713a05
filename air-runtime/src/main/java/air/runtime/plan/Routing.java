package air.runtime.plan;

/** Which final-aggregate instance owns a (window, key) partial. */
public enum Routing {
    /** By a hash of the key: every window of a key goes to the same instance. */
    KEY,
    /**
     * Asynchronous iterative routing, by window: all partials of window {@code k} (its start
     * divided by the slide) go to instance {@code k mod W}, so successive windows are finalised
     * on successive instances with no coordinator. A frame shared by sliding windows with
     * different owners goes to each of them.
     */
    AIR
}
