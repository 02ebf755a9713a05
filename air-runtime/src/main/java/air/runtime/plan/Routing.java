package air.runtime.plan;

/** Which final-aggregate instance owns a (window, key) partial. */
public enum Routing {
    /** By a hash of the key: every window of a key goes to the same instance. */
    KEY
}
