/**
 * Readers of the built-in sources, kept beside the engine because a generator's read loop is
 * where a fused chain runs: it pushes each record straight into the chain's first operator, and
 * its position is a plain number so that checkpoints and takeovers can seek back to it.
 */
package air.runtime.impl.source;

