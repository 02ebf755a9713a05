package air.runtime.impl.ops;

/** What meters and diagnostics read of a window's partial half ({@link PartialWindowOp}): frames of accumulators sent, records late. */
public interface PartialWindowMeters {

    long late();

    long partialsSent();
}
