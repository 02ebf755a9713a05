/**
 * How a peer process joins its world, kept apart from the transports themselves. Peers are started
 * three ways (the local launcher, Slurm's {@code srun}, MPJ Express's {@code mpjrun}) and can talk
 * over MPJ Express or AIR's TCP transport; which of these applies is decided from {@code main}'s
 * arguments and the environment. That decision is pure data here ({@link air.channels.bootstrap.WorldSpec#of},
 * the environment passed in as a map, so every case is unit-testable without starting a process),
 * and the one place with effects, {@link air.channels.bootstrap.PeerBootstrap}, serves the
 * rendezvous where it is this peer's to serve and opens the {@link air.channels.Transport} the spec
 * names. The engine asks this package for a transport and knows nothing of ranks, rendezvous or
 * environment variables; the transports take the rank, world and rendezvous they are given and decide nothing of how their peers were started. The
 * rendezvous server ({@link air.channels.bootstrap.Rendezvous}) and the quiet MPJ home are here as
 * start-up pieces that launchers share.
 *
 * <p>MPJ Express itself is not here: the MPJ transport is the {@code air-mpj} module, which the
 * bootstrap finds through {@link air.channels.bootstrap.MpjProvider} only when a world asks for it,
 * so that embedded and TCP applications never need MPJ Express to build or run.
 */
package air.channels.bootstrap;

