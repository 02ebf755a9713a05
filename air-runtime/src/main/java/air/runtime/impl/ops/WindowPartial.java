package air.runtime.impl.ops;

/** What meters and diagnostics read of a partial window operator. */
public interface WindowPartial {

    long late();

    long partialsSent();
}
