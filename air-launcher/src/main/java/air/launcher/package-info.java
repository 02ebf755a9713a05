/**
 * Starting and steering peer JVMs on one machine: the daemon-less local cluster
 * ({@link air.launcher.LocalCluster}) and the event channel its peers report on.
 *
 * <p>Why a module of its own: programs that steer peers (the kill and restart supervisors) used
 * to decide by matching the peers' log lines, which broke whenever a line was reworded. Here each
 * peer sends its typed {@link air.runtime.JobEvent}s back over a loopback socket the launcher
 * serves ({@code AIR_EVENTS=host:port}, {@link air.launcher.PeerReporter} on the peer's side, one
 * line per event in the protocol of {@link air.launcher.EventLine}). The log is only passed on,
 * never read.
 */
package air.launcher;
