/**
 * Starting and steering peer JVMs on one machine: the daemon-less local cluster
 * ({@link air.launcher.LocalCluster}), the restart supervisor that kills peers and restarts them
 * from checkpoints ({@link air.launcher.RestartSupervisor}), the replica supervisor that kills
 * peers and waits for their takeover ({@link air.launcher.ReplicaSupervisor}), and first-output
 * tracking for recovery times.
 *
 * <p>Why a module of its own: supervisors used to decide by matching the peers' log lines, which
 * broke whenever a line was reworded. Here they decide only from typed
 * {@link air.runtime.JobEvent}s, which each peer sends back over a loopback socket the launcher
 * serves ({@code AIR_EVENTS=host:port}, {@link air.launcher.PeerReporter} on the peer's side, one
 * line per event in the protocol of {@link air.launcher.EventLine}). The log is only passed on,
 * never read.
 */
package air.launcher;

