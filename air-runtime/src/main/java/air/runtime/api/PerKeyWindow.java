package air.runtime.api;

/**
 * A window shaped by each key's own records rather than aligned to the epoch: a session
 * ({@link SessionWindow}) or a count of records ({@link CountWindow}). Only a keyed stream has
 * them ({@code keyBy(...).window(...)}); they aggregate and reduce, but neither rank (top-k) nor
 * join, since two keys' or two streams' windows do not line up.
 */
public sealed interface PerKeyWindow permits SessionWindow, CountWindow {
}
